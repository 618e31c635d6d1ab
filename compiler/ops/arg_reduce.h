// The index of the largest or smallest element along one axis (ONNX ArgMax / ArgMin).
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct ArgReduceParams {
  bool max = true;            // ArgMax; false: ArgMin
  int64_t axis = 0;           // may be negative
  bool keepdims = true;       // the axis stays as size 1; otherwise it is dropped
  bool select_last = false;   // among equal extremes, the last index (default: the first)
};

// int64 indices. Stages: the extreme along the axis (keepdims), for floats whether the axis holds
// a NaN, then the first (or last) index holding the extreme. A NaN counts as the extreme, as
// NumPy's and PyTorch's argmax/argmin have it (max and min themselves skip NaN).
absl::StatusOr<Tensor> ArgReduce(DagBuilder& b, const Tensor& x, const ArgReduceParams& p, std::string name = "");

// ONNX Hardmax: 1 at the first largest element along `axis`, 0 elsewhere, in x's dtype.
absl::StatusOr<Tensor> Hardmax(DagBuilder& b, const Tensor& x, int64_t axis, std::string name = "hardmax");

}  // namespace tunefarm::ops
