// ONNX's QLinearConv written out, for the tests of the quantized import and of the compiled
// packed kernel: `groups` groups, the same padding on every side (x's zero point), square kernel.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tunefarm::testing {

struct QuantizedConvCase {
  int64_t c = 0, h = 0, w = 0, k = 0, r = 0, pad = 0, stride = 1;
  std::vector<double> x, weights, bias;  // NCHW (N = 1), OIHW, [K] (empty: none)
  double x_zp = 0;
  std::vector<double> w_zp;               // [K] (empty: zeros)
  int64_t groups = 1;                     // weights are [K, C / groups, R, R]
  int64_t OutH() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t OutW() const { return (w + 2 * pad - r) / stride + 1; }
};

// The int32 accumulators: sum of (x - x_zp) * (w - w_zp[k]) over the window, plus the bias, in
// NCHW order. The padding is x's zero point, so it adds nothing.
inline std::vector<int64_t> QuantizedConvAccumulators(const QuantizedConvCase& q) {
  std::vector<int64_t> out;
  for (int64_t m = 0; m < q.k; ++m)
    for (int64_t oy = 0; oy < q.OutH(); ++oy)
      for (int64_t ox = 0; ox < q.OutW(); ++ox) {
        int64_t acc = q.bias.empty() ? 0 : static_cast<int64_t>(q.bias[m]);
        const int64_t zw = q.w_zp.empty() ? 0 : static_cast<int64_t>(q.w_zp[m]);
        const int64_t per_group = q.c / q.groups, first = m / (q.k / q.groups) * per_group;
        for (int64_t c = 0; c < per_group; ++c)
          for (int64_t ky = 0; ky < q.r; ++ky)
            for (int64_t kx = 0; kx < q.r; ++kx) {
              const int64_t iy = oy * q.stride + ky - q.pad, ix = ox * q.stride + kx - q.pad;
              if (iy < 0 || iy >= q.h || ix < 0 || ix >= q.w) continue;
              acc += static_cast<int64_t>(q.x[((first + c) * q.h + iy) * q.w + ix] - q.x_zp) *
                     (static_cast<int64_t>(q.weights[((m * per_group + c) * q.r + ky) * q.r + kx]) - zw);
            }
        out.push_back(acc);
      }
  return out;
}

// saturate(round_half_even(acc * factor) + y_zp) into [lo, hi], the factor computed in float32
// from float32 scales as ONNX's reference does.
inline double Requantized(int64_t acc, float factor, double y_zp, double lo, double hi) {
  return std::clamp(std::nearbyint(static_cast<double>(acc) * factor) + y_zp, lo, hi);
}

}  // namespace tunefarm::testing
