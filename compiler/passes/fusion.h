// Operator fusion by op pattern (TVM-style, kept simple). Walking operator nodes in order:
//   - an out-elementwise-fusable node (Conv, Gemm, MatMul, pools) or a reduction starts a group
//     and absorbs following elementwise/broadcast nodes (bias add, Relu, Clip, residual Add);
//   - an elementwise/broadcast/injective node starts a group that absorbs following nodes of
//     those patterns (injective chains);
//   - an opaque node stays alone.
// A node joins the group of a producer only when the value it reads from that group has exactly
// one consumer and is not a graph output, so a fused-away intermediate is never needed outside
// its group; groups are therefore chains and cannot form cycles.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/op_registry.h"

namespace tunefarm::passes {

// One fused group: operator nodes that become one kernel.
struct FusedGroup {
  std::vector<int> nodes;                 // operator node ids of the graph, topological order
  int anchor = -1;                        // the master node (conv, dense, pool, reduction) or, without one, the last node
  std::vector<graph::NodeEntry> outputs;  // values of group nodes read outside the group or graph outputs
  graph::OpPattern pattern = graph::OpPattern::kOpaque;  // the anchor's pattern
  bool is_view = false;  // a single Reshape/Flatten/Squeeze/Unsqueeze/Identity: no kernel, the output aliases the input bytes
};

struct FusionPlan {
  std::vector<FusedGroup> groups;  // topological order; every operator node in exactly one group
};

absl::StatusOr<FusionPlan> FuseOps(const graph::Graph& g);

// One line per group: "#3 Conv+Add+Relu anchor=Conv 'conv2' (out-elementwise-fusable) -> %14 float32[...]".
std::string FusionPlanToString(const graph::Graph& g, const FusionPlan& plan);

// The values a group reads from outside itself (graph inputs, params, other groups' outputs),
// each once, in first-use order.
std::vector<graph::NodeEntry> GroupInputs(const graph::Graph& g, const FusedGroup& group);

// Ops whose output is the input's bytes under another shape.
bool IsViewOp(const std::string& op);

}  // namespace tunefarm::passes
