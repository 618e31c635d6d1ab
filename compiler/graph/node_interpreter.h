// Runs one graph node on host tensors through its own TE compute: the node becomes a one-node
// kernel (placeholders, ComputeNode, the default schedule for 8 lanes and 1 thread, tir::Lower)
// executed by the loop-IR interpreter. Nothing is JIT-compiled, so it suits small tensors: the
// importer's shape arithmetic, constant folding, and the conformance harness's reference.
// Because it is the op's one compute, a folded constant means what the compiled kernel computes.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::graph {

// Point evaluations (every stage's elements times its reduce extent) above which InterpretNode
// refuses with ResourceExhausted: the interpreter spends tens of nanoseconds on each.
inline constexpr int64_t kMaxInterpretedWork = int64_t{1} << 26;

// The node's outputs (one per node output) for inputs `in` (one per node input, params
// included), or:
//   - Unimplemented: the op has no compute, or its compute refuses these dtypes or shapes;
//   - ResourceExhausted: more work than kMaxInterpretedWork;
//   - InvalidArgument: the interpreter failed on these values (an access out of bounds; ops
//     guard their divisions and indices, so this is a compiler bug), named with the node and op;
//   - Internal: the default schedule or lowering failed (a compiler bug).
absl::StatusOr<std::vector<HostTensor>> InterpretNode(const Node& node, const std::vector<const HostTensor*>& in);

}  // namespace tunefarm::graph
