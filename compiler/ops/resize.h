// Resize as a separable gather with weights (ONNX Resize, Upsample). Every coordinate rule of
// ONNX (half_pixel, align_corners, tf_crop_and_resize, ...) and every kernel (nearest, linear,
// cubic) reduces, per resized axis, to a table: output position o reads input positions
// index[o, t] with weights weight[o, t], t < taps. The tables are computed on the host at
// compile time (compiler/graph/resize_tables.h), so the kernel only gathers and sums, as ONNX
// Runtime's CPU kernel does with its precomputed coefficients.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct ResizeAxis {
  int axis = 0;                  // of the input, in [0, rank)
  Tensor index;                  // int64 [out, taps]: input positions (clamped into the axis)
  std::optional<Tensor> weight;  // [out, taps] of the compute dtype; absent: one tap of weight 1
};

// out[o] = sum over every tap combination of prod_d weight_d[o_d, t_d] * x[index_d[o_d, t_d]],
// axes not in `axes` read o unchanged. With `extrapolation_value`, an output point where any axis's
// weights sum to 0 (a coordinate outside the input: tf_crop_and_resize) is that value instead.
// Weighted axes need a float32/float64 x; a nearest resize (no weights) takes any dtype.
absl::StatusOr<Tensor> Resize(DagBuilder& b, const Tensor& x, const std::vector<ResizeAxis>& axes,
                              std::optional<double> extrapolation_value, std::string name = "resize");

}  // namespace tunefarm::ops
