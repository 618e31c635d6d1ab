// The memory-planning problem of a fused graph: one PlanValue per value that exists at run time
// (graph inputs, params, group outputs; values fused away inside a group need no storage) and one
// PlanCall per kernel (non-view group) with the values it reads and writes.
#pragma once

#include <map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"
#include "compiler/passes/fusion.h"
#include "compiler/passes/memory_plan.h"

namespace tunefarm::passes {

struct GraphMemoryProblem {
  std::vector<PlanValue> values;
  std::vector<PlanCall> calls;
  std::vector<int> call_group;                   // plan.groups index of each call
  std::vector<graph::NodeEntry> value_entries;   // the graph value of each PlanValue
  std::map<graph::NodeEntry, int> value_of;      // graph value → PlanValue id
};

absl::StatusOr<GraphMemoryProblem> BuildMemoryProblem(const graph::Graph& g, const FusionPlan& plan);

}  // namespace tunefarm::passes
