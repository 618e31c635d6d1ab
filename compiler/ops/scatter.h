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

// How ScatterND combines an update with what is there (ONNX `reduction`).
enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

// data [D0..Dr), indices [U.., k], updates [U.., Dk..] -> data with out[indices[u], rest]
// combined with updates[u, rest] for every u (ONNX ScatterND). Negative indices count from the
// end; an index outside its axis after that writes nothing. kNone: where several u hit one
// element (ONNX leaves it undefined) the last in row-major order wins.
absl::StatusOr<Tensor> ScatterND(DagBuilder& b, const Tensor& data, const Tensor& indices, const Tensor& updates,
                                 ScatterReduction reduction, std::string name = "scatter_nd");

}  // namespace tunefarm::ops
