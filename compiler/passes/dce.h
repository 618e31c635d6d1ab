// Dead-code elimination: keeps the nodes some graph output depends on, and every graph input
// (the graph's calling interface); drops other operator nodes and unused params.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::passes {

absl::StatusOr<graph::Graph> EliminateDeadCode(const graph::Graph& g);

}  // namespace tunefarm::passes
