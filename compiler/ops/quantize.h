// Linear quantization (ONNX QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear): float
// values <-> 8-bit integers through a scale and a zero point, per tensor or per channel.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

// x float32 (or float64); scale of x's dtype, a scalar ([] or [1]) or one per index of `axis`;
// zero_point of the same shape, int8 or uint8, or null (uint8 0) -> `zero_point`'s dtype:
// saturate(round_half_even(x / scale) + zero_point).
absl::StatusOr<Tensor> QuantizeLinear(DagBuilder& b, const Tensor& x, const Tensor& scale, const Tensor* zero_point,
                                      int64_t axis, std::string name = "quantize");

// x int8, uint8 or int32; scale float32, shaped as above; zero_point as x or null (0) ->
// float32: (x - zero_point) * scale.
absl::StatusOr<Tensor> DequantizeLinear(DagBuilder& b, const Tensor& x, const Tensor& scale, const Tensor* zero_point,
                                        int64_t axis, std::string name = "dequantize");

// x float32 -> {y uint8, scale float32 [], zero point uint8 []}: the scale and zero point that map
// [min(0, min x), max(0, max x)] onto [0, 255], then QuantizeLinear with them.
absl::StatusOr<std::vector<Tensor>> DynamicQuantizeLinear(DagBuilder& b, const Tensor& x,
                                                           std::string name = "dynamic_quantize");

}  // namespace tunefarm::ops
