// The reference executor of the conformance harness: runs a graph node by node, each operator
// node through graph::InterpretNode (its own one-node kernel, executed by the loop-IR
// interpreter; the same path constant folding takes). The conformance cases are small
// enough that the interpreter runs all of them in about a second, so nothing is JIT-compiled.
#pragma once

#include "tests/conformance/conformance_case.h"

namespace tunefarm::conformance {

absl::StatusOr<std::vector<HostTensor>> RunReference(const graph::Graph& g, const std::vector<HostTensor>& inputs);

// RunReference as a CaseExecutor.
CaseExecutor ReferenceExecutor();

}  // namespace tunefarm::conformance
