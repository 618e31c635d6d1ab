// Classifying float elements (ONNX IsNaN, IsInf): bool tensors of the input's shape.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> IsNaN(DagBuilder& b, const Tensor& x, std::string name = "is_nan");
// True for +inf when `positive`, for -inf when `negative` (ONNX detect_positive/negative).
absl::StatusOr<Tensor> IsInf(DagBuilder& b, const Tensor& x, bool positive, bool negative, std::string name = "is_inf");

}  // namespace tunefarm::ops
