// Compile-time evaluation of one node on constant inputs, on the host. Used by the importer
// (shape arithmetic) and by the constant-folding pass (compiler/passes).
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
// nullopt when the op is not one the evaluator knows or the output has more than `max_elements`
// elements (the caller then keeps the node in the graph).
absl::StatusOr<std::optional<std::vector<HostTensor>>> EvaluateConstant(const Node& node,
                                                                        const std::vector<const HostTensor*>& inputs,
                                                                        int64_t max_elements = kMaxFoldElements);

}  // namespace tunefarm::graph
