// Constant folding: an operator node whose inputs are all params is evaluated on the host
// (graph::EvaluateConstant) and replaced by a param holding its result. Nodes the evaluator does
// not know stay. Results are folded only while they stay small or do not grow past their inputs
// (a huge Expand of a scalar stays a node). Inputs left unused are removed later by DCE.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::passes {

// Results up to this many elements always fold; larger ones fold only when no larger than all
// of their inputs together, and never beyond kMaxFoldedElements.
inline constexpr int64_t kAlwaysFoldElements = int64_t{1} << 16;
inline constexpr int64_t kMaxFoldedElements = int64_t{1} << 24;

absl::StatusOr<graph::Graph> FoldConstants(const graph::Graph& g);

}  // namespace tunefarm::passes
