// Einsum (ONNX Einsum, NumPy's einsum): a sum of products indexed by letters, e.g. "bij,bjk->bik".
// One TE stage: the output's letters are its axes, the other letters are reduce axes, and the
// body multiplies each input read at its letters. A letter repeated within one input reads a
// diagonal; "..." stands for broadcast leading axes; without "->" the output is the ellipsis axes
// then the letters used once, in alphabetical order.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

// The equation resolved against the input shapes.
struct EinsumPlan {
  // Labels are letters, or for the broadcast axes '0' + k (k-th ellipsis axis, left to right).
  std::vector<std::string> input_labels;  // one label per input axis
  std::string output_labels;              // one per output axis
  std::string reduce_labels;              // summed over
  std::vector<int64_t> extent_of;         // by label (char), -1 where unused
  Shape output_shape;
};

// Parses `equation` (spaces ignored) for inputs of `shapes`; errors name what does not fit.
absl::StatusOr<EinsumPlan> PlanEinsum(const std::string& equation, const std::vector<Shape>& shapes);

// Inputs of one numeric dtype.
absl::StatusOr<Tensor> Einsum(DagBuilder& b, const std::vector<Tensor>& inputs, const std::string& equation,
                              std::string name = "einsum");

}  // namespace tunefarm::ops
