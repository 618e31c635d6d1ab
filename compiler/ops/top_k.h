// The k largest (or smallest) elements along one axis with their indices (ONNX TopK).
#pragma once

#include <string>
#include <utility>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct TopKParams {
  int64_t k = 1;
  int64_t axis = -1;  // may be negative
  bool largest = true;
};

// x [.. D ..] -> values and int64 indices [.. k ..], sorted: the element ranked j along the axis
// comes j-th, equal elements in index order (ONNX's order). Each element's rank is counted
// against every other element of its row, so the work is D^2 per row: right for the small axes
// of detection heads and conformance cases, not for a vocabulary-sized axis.
absl::StatusOr<std::pair<Tensor, Tensor>> TopK(DagBuilder& b, const Tensor& x, const TopKParams& p,
                                               std::string name = "top_k");

}  // namespace tunefarm::ops
