// Running sums along one axis (ONNX CumSum).
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct CumulativeParams {
  int64_t axis = 0;        // may be negative
  bool exclusive = false;  // element i sums the elements before it, not up to it
  bool reverse = false;    // sums run from the end of the axis
};

// One reduction per element over the axis (quadratic in its extent: CumSum axes are short in
// the models it appears in, and the reduction vectorizes over the other axes).
absl::StatusOr<Tensor> CumulativeSum(DagBuilder& b, const Tensor& x, const CumulativeParams& p,
                                     std::string name = "cumsum");

}  // namespace tunefarm::ops
