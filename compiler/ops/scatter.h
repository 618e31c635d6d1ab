// Scatter along one axis (ONNX ScatterElements, and the older Scatter).
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

// data [D0..Dn], indices and updates [I0..In] of the same rank, Ik <= Dk off the axis ->
// [D0..Dn]: data, with out[j with axis a replaced by indices[j]] = updates[j] for every j of
// indices. Negative indices count from the end; indices outside [0, Da) after that write nothing.
// Where several j hit one element (ONNX leaves the order undefined) the last along the axis wins.
absl::StatusOr<Tensor> ScatterElements(DagBuilder& b, const Tensor& data, const Tensor& indices, const Tensor& updates,
                                       int64_t axis, std::string name = "scatter_elements");

}  // namespace tunefarm::ops
