// Layout transforms between NCHW and the blocked NCHW[x]c layout the graph compiler uses on
// CPUs (x = the target's vector width in elements), and the matching conv weight packing
// OIHW -> OIHW[x]i[y]o (TVM's layouts). Any dtype, any number of spatial axes.
//
// A channel count that x does not divide is padded with zeros up to the next multiple
// (ceil(C / x) blocks); NchwcToNchw drops the padding again.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

// [N, C, D...] -> [N, ceil(C / block), D..., block]; out[n, co, d..., ci] = x[n, co*block + ci, d...].
absl::StatusOr<Tensor> NchwToNchwc(DagBuilder& b, const Tensor& x, int64_t block, std::string name = "to_nchwc");

// [N, CB, D..., block] -> [N, channels, D...] with channels <= CB * block.
absl::StatusOr<Tensor> NchwcToNchw(DagBuilder& b, const Tensor& x, int64_t channels, std::string name = "to_nchw");

// Conv weight [K, Cg, R, S] -> [ceil(K / out_block), ceil(Cg / in_block), R, S, in_block, out_block]
// with out[ko, co, r, s, ci, ki] = w[ko*out_block + ki, co*in_block + ci, r, s] (zero past K or Cg).
// For a depthwise conv in NCHWc pass in_block = 1.
absl::StatusOr<Tensor> PackConv2dWeight(DagBuilder& b, const Tensor& w, int64_t in_block, int64_t out_block,
                                        std::string name = "pack_weight");

}  // namespace tunefarm::ops
