// Compile-time evaluation of one node on constant inputs, on the host. Used by the importer
// (shape arithmetic) and by the constant-folding pass (compiler/passes). It runs the op's own
// TE compute through the loop-IR interpreter (node_interpreter.h), so every op with a compute
// folds, and a folded value is what the compiled kernel would have computed.
#pragma once

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::graph {

// Largest output the importer folds; bigger constant computations stay in the graph for the
// constant-folding pass, which passes its own limit.
inline constexpr int64_t kMaxFoldElements = int64_t{1} << 16;

// Evaluates `node` (already prepared: attrs filled, outputs typed) on constant inputs. Returns
// nullopt when the op has no compute for these inputs, the work is too large for the
// interpreter, or the outputs have more than `max_elements` elements (the caller then keeps the
// node in the graph); an error when the interpreter fails on these values (ops guard divisions
// and indices, so that is a compiler bug, reported rather than folded).
absl::StatusOr<std::optional<std::vector<HostTensor>>> EvaluateConstant(const Node& node,
                                                                        const std::vector<const HostTensor*>& inputs,
                                                                        int64_t max_elements = kMaxFoldElements);

}  // namespace tunefarm::graph
