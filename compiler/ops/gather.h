// Gather along one axis (ONNX Gather, GatherElements). Data of any dtype, int32 or int64 indices.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct GatherParams {
  int64_t axis = 0;  // may be negative
};

// data [D0..Da..Dn], indices [I...] -> [D0..Da-1, I..., Da+1..Dn]; out[.., j.., ..] =
// data[.., indices[j..], ..]. A negative index counts from the end (ONNX); an index still
// outside [0, Da) after that is clamped into it (ONNX leaves it undefined; clamping keeps the
// kernel's reads in bounds).
absl::StatusOr<Tensor> Gather(DagBuilder& b, const Tensor& data, const Tensor& indices, const GatherParams& p,
                              std::string name = "gather");

// data [D0..Dn], indices [I0..In] of the same rank, Ik <= Dk off the axis -> [I0..In];
// out[j] = data[j with axis a replaced by indices[j]] (ONNX GatherElements). Negative indices
// count from the end; the rest are clamped into [0, Da), as in Gather.
absl::StatusOr<Tensor> GatherElements(DagBuilder& b, const Tensor& data, const Tensor& indices, const GatherParams& p,
                                      std::string name = "gather_elements");

// data [B.., D0..Dr), indices [B.., I.., k] with the first `batch_dims` axes equal ->
// [B.., I.., Dk..]: out[b, i, rest] = data[b, indices[b, i, 0..k), rest] (ONNX GatherND).
// Negative indices count from the end; the rest are clamped, as in Gather.
absl::StatusOr<Tensor> GatherND(DagBuilder& b, const Tensor& data, const Tensor& indices, int64_t batch_dims,
                                std::string name = "gather_nd");

// x with the first lens[b] steps along `time_axis` of each batch row b (along `batch_axis`)
// reversed, the rest kept (ONNX ReverseSequence). Lengths are clamped into [0, T].
absl::StatusOr<Tensor> ReverseSequence(DagBuilder& b, const Tensor& x, const Tensor& lens, int64_t batch_axis,
                                       int64_t time_axis, std::string name = "reverse_sequence");

}  // namespace tunefarm::ops
