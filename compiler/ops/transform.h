// Data movement: transpose, reshape, concat and slice (ONNX semantics). Any dtype; every op
// is one stage of index arithmetic (reads only, no math).
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct TransposeParams {
  std::vector<int64_t> perm;  // out axis d is input axis perm[d]; empty reverses the axes
};
absl::StatusOr<Tensor> Transpose(DagBuilder& b, const Tensor& x, const TransposeParams& p,
                                 std::string name = "transpose");

struct ReshapeParams {
  // Target shape: at most one -1 (inferred); 0 copies the input's dimension at that position.
  std::vector<int64_t> shape;
};
// Row-major reindexing through the flat element index.
absl::StatusOr<Tensor> Reshape(DagBuilder& b, const Tensor& x, const ReshapeParams& p, std::string name = "reshape");
// The resolved target shape (what Reshape produces), or why it is invalid.
absl::StatusOr<Shape> ReshapeShape(const Shape& input, const std::vector<int64_t>& target);

// Inputs of one dtype, equal except along `axis` (may be negative).
absl::StatusOr<Tensor> Concat(DagBuilder& b, const std::vector<Tensor>& inputs, int64_t axis,
                              std::string name = "concat");

struct SliceParams {
  std::vector<int64_t> starts, ends;  // clamped into range as ONNX does; negative counts from the end
  std::vector<int64_t> axes;          // empty: 0, 1, ... (as many as starts)
  std::vector<int64_t> steps;         // empty: 1; negative steps walk backwards; never 0
};
// An empty result (for example start == end) is an error: zero-sized tensors are not supported.
absl::StatusOr<Tensor> Slice(DagBuilder& b, const Tensor& x, const SliceParams& p, std::string name = "slice");

// Broadcasts x to `shape` with numpy rules (ONNX Expand): the result has the broadcast of
// x.shape and shape, so a 1 in `shape` keeps x's dimension.
absl::StatusOr<Tensor> Expand(DagBuilder& b, const Tensor& x, const std::vector<int64_t>& shape,
                              std::string name = "expand");

// Repeats x `repeats[d]` times along each axis d (ONNX Tile); repeats >= 1, one per axis.
absl::StatusOr<Tensor> Tile(DagBuilder& b, const Tensor& x, const std::vector<int64_t>& repeats,
                            std::string name = "tile");

// A copy of x (ONNX Identity), so a graph output can be its own kernel argument.
absl::StatusOr<Tensor> Copy(DagBuilder& b, const Tensor& x, std::string name = "copy");

}  // namespace tunefarm::ops
