// Common-subexpression elimination: operator nodes with the same op, attributes and (already
// merged) inputs become one; params with the same dtype, shape and bytes become one. Graph
// inputs never merge. The first occurrence survives; later readers are redirected to it.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::passes {

absl::StatusOr<graph::Graph> EliminateCommonSubexpressions(const graph::Graph& g);

}  // namespace tunefarm::passes
