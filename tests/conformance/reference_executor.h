// The reference executor of the conformance harness: runs a graph node by node, each operator
// node as its own one-node kernel (placeholders, ComputeNode, the default schedule for 8 lanes
// and 1 thread, tir::Lower) executed by the loop-IR interpreter. The conformance cases are small
// enough that the interpreter runs all of them in about a second, so nothing is JIT-compiled.
#pragma once

#include "tests/conformance/conformance_case.h"

namespace tunefarm::conformance {

absl::StatusOr<std::vector<HostTensor>> RunReference(const graph::Graph& g, const std::vector<HostTensor>& inputs);

// RunReference as a CaseExecutor.
CaseExecutor ReferenceExecutor();

}  // namespace tunefarm::conformance
