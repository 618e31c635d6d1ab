// A reference for whole graphs: every operator node evaluated on its own one-node compute DAG
// by tests/common/dag_evaluator.h (point by point, no schedule, no lowering, no codegen), so
// fusion, planning, code generation and the runtime are all checked against op semantics.
#pragma once

#include <vector>

#include "compiler/graph/graph.h"

namespace tunefarm::testing {

// inputs: one vector per graph input (node order); returns one vector per graph output.
std::vector<std::vector<double>> EvaluateGraph(const graph::Graph& g, const std::vector<std::vector<double>>& inputs);

}  // namespace tunefarm::testing
