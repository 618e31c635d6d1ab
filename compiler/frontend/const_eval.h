// Compile-time evaluation of small constant subgraphs (shape arithmetic) on the host.
#pragma once

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::frontend {

// Largest output the importer folds; bigger constant computations stay in the graph for the
// constant-folding pass.
inline constexpr int64_t kMaxFoldElements = int64_t{1} << 16;

// Evaluates `node` (already prepared: attrs filled, outputs typed) on constant inputs. Returns
// nullopt when the op is not one the evaluator knows (the caller then adds it to the graph).
absl::StatusOr<std::optional<std::vector<graph::HostTensor>>> EvaluateConstant(
    const graph::Node& node, const std::vector<const graph::HostTensor*>& inputs);

}  // namespace tunefarm::frontend
