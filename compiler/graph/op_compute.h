// The tensor-expression compute of every graph op: a node's outputs built from its inputs with
// the op library (compiler/ops). This is the bridge from the graph IR to kernels: the build step
// calls ComputeNode for each node of a fused group on one DagBuilder, and the conformance
// harness calls it for one node at a time.
#pragma once

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/op_registry.h"
#include "compiler/te/compute_dag.h"

namespace tunefarm::graph {

using TeTensor = te::DagBuilder::Tensor;

// Builds the node's outputs (one per node output, in order) from its inputs (one te tensor per
// node input, params included) with the op library. Attributes have their defaults filled (the
// registry did that when the node was added) and the node's output types are already inferred,
// so a compute may read them.
using ComputeFn = std::function<absl::StatusOr<std::vector<TeTensor>>(te::DagBuilder& b, const Node& node,
                                                                      const std::vector<TeTensor>& inputs)>;

struct OpCompute {
  ComputeFn fn;
};

// Looks up node.op's compute and runs it; an op without one is Unimplemented naming the node and
// op. Errors of the op library come back as `node '<name>' (op <Op>): <reason>`. Stage names
// derive from node.name so dumps are readable. The outputs' dtypes and shapes are checked
// against node.outputs (a mismatch is Internal: inference and compute disagree).
absl::StatusOr<std::vector<TeTensor>> ComputeNode(te::DagBuilder& b, const Node& node,
                                                  const std::vector<TeTensor>& inputs);

}  // namespace tunefarm::graph
