// Determinant of square matrices (ONNX Det), by the Leibniz formula: the signed sum over every
// permutation of the products a[i, perm(i)]. Exact in form and branch-free, so one elementwise
// stage; n! terms limit it to small matrices (n <= kMaxDetOrder), which is what models use it
// for (2x2 and 3x3 geometry). Larger ones are refused with an error, not computed slowly.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

inline constexpr int64_t kMaxDetOrder = 5;

// x [..., n, n] float -> [...].
absl::StatusOr<Tensor> Det(DagBuilder& b, const Tensor& x, std::string name = "det");

}  // namespace tunefarm::ops
