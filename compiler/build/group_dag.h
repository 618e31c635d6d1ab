// One fused group of graph nodes → one compute DAG (a task). Values read from outside the group
// become placeholders (parameters are marked constant, which is part of the workload key), in
// the order the group first reads them; the group's outputs are the DAG's outputs. Two groups
// with the same structure and shapes therefore get the same DAG text, the same workload key and
// the same kernel, with the same argument order.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"
#include "compiler/passes/fusion.h"
#include "compiler/te/compute_dag.h"

namespace tunefarm::build {

struct GroupDag {
  std::shared_ptr<const te::ComputeDag> dag;
  std::vector<graph::NodeEntry> inputs;   // graph values bound to the placeholders, argument order
  std::vector<graph::NodeEntry> outputs;  // graph values the DAG's outputs produce, argument order
};

absl::StatusOr<GroupDag> BuildGroupDag(const graph::Graph& g, const passes::FusedGroup& group);

// A kernel that copies one tensor: graph outputs that are inputs, parameters or views of them.
std::shared_ptr<const te::ComputeDag> CopyDag(const graph::TensorType& type);

}  // namespace tunefarm::build
