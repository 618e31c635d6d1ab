#include "compiler/passes/layout_pack.h"

#include <algorithm>
#include <cstring>

#include "common/check.h"
#include "compiler/ops/winograd.h"

namespace tunefarm::passes {

int64_t ChannelBlock(int64_t channels, int64_t block) {
  int64_t largest = 1, power_of_two = 1;
  for (int64_t b = std::min(block, channels); b > 1; --b) {
    if (channels % b != 0) continue;
    largest = std::max(largest, b);
    if ((b & (b - 1)) == 0) power_of_two = std::max(power_of_two, b);
  }
  // Lanes that fill whole vector registers: 8 of 1000 classes, not 10 (which left squeezenet's
  // classifier at a third of the speed of its neighbours).
  return 2 * power_of_two >= largest ? power_of_two : largest;
}

graph::HostTensor PadChannels(const graph::HostTensor& t, int64_t channels) {
  TF_CHECK(!t.shape.empty() && t.shape[0] <= channels, "PadChannels: more channels than the padded count");
  if (t.shape[0] == channels) return t;
  graph::HostTensor out = t;
  out.shape[0] = channels;
  out.bytes.resize(t.bytes.size() / static_cast<size_t>(t.shape[0]) * static_cast<size_t>(channels), 0);
  return out;
}

graph::HostTensor PadInputChannels(const graph::HostTensor& w, int64_t channels) {
  TF_CHECK(w.shape.size() == 4 && w.shape[1] <= channels, "PadInputChannels: not a conv weight, or more channels");
  if (w.shape[1] == channels) return w;
  const size_t elem = static_cast<size_t>(te::DTypeBytes(w.dtype));
  const size_t rs = static_cast<size_t>(w.shape[2] * w.shape[3]) * elem;
  const size_t in_row = static_cast<size_t>(w.shape[1]) * rs, out_row = static_cast<size_t>(channels) * rs;
  graph::HostTensor out = w;
  out.shape[1] = channels;
  out.bytes.assign(static_cast<size_t>(w.shape[0]) * out_row, 0);
  for (int64_t k = 0; k < w.shape[0]; ++k)
    std::memcpy(&out.bytes[static_cast<size_t>(k) * out_row], &w.bytes[static_cast<size_t>(k) * in_row], in_row);
  return out;
}

graph::HostTensor PackConvWeight(const graph::HostTensor& w, int64_t xi, int64_t y) {
  TF_CHECK(w.shape.size() == 4 && w.shape[0] % y == 0 && w.shape[1] % xi == 0, "PackConvWeight: bad blocks");
  const int64_t k = w.shape[0], cg = w.shape[1], rs = w.shape[2] * w.shape[3];
  const size_t elem = static_cast<size_t>(te::DTypeBytes(w.dtype));
  graph::HostTensor out;
  out.dtype = w.dtype;
  out.shape = {k / y, cg / xi, w.shape[2], w.shape[3], xi, y};
  out.bytes.resize(w.bytes.size());
  // out[ko, co, rs, ci, ki] = w[ko*y + ki, co*xi + ci, rs]
  for (int64_t ko = 0; ko < k / y; ++ko)
    for (int64_t co = 0; co < cg / xi; ++co)
      for (int64_t p = 0; p < rs; ++p)
        for (int64_t ci = 0; ci < xi; ++ci)
          for (int64_t ki = 0; ki < y; ++ki) {
            int64_t dst = (((ko * (cg / xi) + co) * rs + p) * xi + ci) * y + ki;
            int64_t src = ((ko * y + ki) * cg + co * xi + ci) * rs + p;
            std::memcpy(&out.bytes[dst * elem], &w.bytes[src * elem], elem);
          }
  return out;
}

graph::HostTensor WinogradWeight(const graph::HostTensor& w, int m, int64_t x, int64_t y) {
  TF_CHECK(w.dtype == te::DType::kFloat32 && w.shape.size() == 4 && w.shape[2] == 3 && w.shape[3] == 3,
           "WinogradWeight: not a float32 3x3 weight");
  const int64_t k = w.shape[0], c = w.shape[1], alpha = m + 2;
  std::vector<float> values(static_cast<size_t>(w.NumElements()));
  std::memcpy(values.data(), w.bytes.data(), values.size() * sizeof(float));
  return graph::HostTensor::FromFloats(ops::TransformWinogradWeight(values, k, c, m, x, y),
                                      {alpha, alpha, k / y, c / x, x, y});
}

graph::HostTensor BlockPerChannel(const graph::HostTensor& t, int64_t channels, int64_t block) {
  TF_CHECK(t.NumElements() == channels && channels % block == 0, "BlockPerChannel: not per-channel");
  graph::HostTensor out = t;
  out.shape = {channels / block, 1, 1, block};
  return out;
}

}  // namespace tunefarm::passes
