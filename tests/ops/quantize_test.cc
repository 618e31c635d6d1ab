// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear against their ONNX definitions
// written out: per tensor and per channel, uint8 and int8, rounding half to even, saturation.
#include <algorithm>
#include <cmath>

#include "compiler/ops/quantize.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

double Saturate(double v, DType t) {
  return t == DType::kUInt8 ? std::clamp(v, 0.0, 255.0) : std::clamp(v, -128.0, 127.0);
}

TEST(Quantize, PerTensorAndPerChannelRoundTrips) {
  uint64_t seed = 70;
  const Shape shape{2, 3, 4};
  for (DType q : {DType::kUInt8, DType::kInt8})
    for (bool per_channel : {false, true}) {
      HostTensor x = Random(DType::kFloat32, shape, seed++, -40, 40);
      x.data[0] = 2.5f;  // halves round to even
      x.data[1] = -3.5f;
      const Shape param_shape = per_channel ? Shape{3} : Shape{};
      HostTensor scale = Random(DType::kFloat32, param_shape, seed++, 0.1, 0.5);
      HostTensor zero = Random(q, param_shape, seed++, q == DType::kUInt8 ? 100 : -10, q == DType::kUInt8 ? 140 : 10);
      if (!per_channel) scale.data[0] = 1.0f;  // so that the halves above stay halves
      auto param = [&](const HostTensor& p, const std::vector<int64_t>& i) { return per_channel ? p.data[i[1]] : p.data[0]; };
      HostTensor want_q(q, shape), want_x(DType::kFloat32, shape);
      ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
        const float ratio = static_cast<float>(x.at(i)) / static_cast<float>(param(scale, i));
        want_q.at(i) = Saturate(std::nearbyint(ratio) + param(zero, i), q);
        want_x.at(i) = static_cast<float>((want_q.at(i) - param(zero, i)) * static_cast<float>(param(scale, i)));
      });
      HostTensor got_q = RunOp({x, scale, zero}, [](DagBuilder& b, const std::vector<Tensor>& in) {
        return QuantizeLinear(b, in[0], in[1], &in[2], 1);
      });
      EXPECT_TRUE(AllClose(got_q, want_q)) << te::DTypeName(q) << " per channel " << per_channel;
      HostTensor got_x = RunOp({want_q, scale, zero}, [](DagBuilder& b, const std::vector<Tensor>& in) {
        return DequantizeLinear(b, in[0], in[1], &in[2], 1);
      });
      EXPECT_TRUE(AllClose(got_x, want_x, 1e-6, 1e-6)) << te::DTypeName(q) << " per channel " << per_channel;
    }
  // A scale of another length than the axis is refused.
  EXPECT_FALSE(BuildStatus({HostTensor(DType::kFloat32, {2, 3}), HostTensor(DType::kFloat32, {2})},
                           [](DagBuilder& b, const std::vector<Tensor>& in) {
                             return QuantizeLinear(b, in[0], in[1], nullptr, 1);
                           }).ok());
}

TEST(Quantize, DynamicRangeAlwaysHoldsZero) {
  for (auto [lo, hi] : {std::pair{-2.0, 5.0}, std::pair{1.0, 3.0}, std::pair{-4.0, -1.0}}) {
    HostTensor x = Random(DType::kFloat32, {3, 5}, 80, lo, hi);
    double mn = 0, mx = 0;
    for (double v : x.data) {
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
    const float scale = static_cast<float>((static_cast<float>(mx) - static_cast<float>(mn)) / 255.0f);
    const double zero = Saturate(std::nearbyint(static_cast<float>(-mn) / scale), DType::kUInt8);
    HostTensor want(DType::kUInt8, x.shape);
    for (int64_t k = 0; k < x.size(); ++k)
      want.data[k] = Saturate(std::nearbyint(static_cast<float>(x.data[k]) / scale) + zero, DType::kUInt8);
    auto part = [&](int which) {
      return RunOp({x}, [which](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
        auto outs = DynamicQuantizeLinear(b, in[0]);
        if (!outs.ok()) return outs.status();
        return (*outs)[which];
      });
    };
    EXPECT_TRUE(AllClose(part(0), want)) << lo << ".." << hi;
    EXPECT_FLOAT_EQ(static_cast<float>(part(1).data[0]), scale);
    EXPECT_EQ(part(2).data[0], zero);
  }
}

}  // namespace
}  // namespace tunefarm::ops::testing
