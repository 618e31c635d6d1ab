// The compiled executor of the conformance harness: what users get. The graph goes through the
// full pipeline (build::PlanModel + build::BuildArtifact for the host target), the artifact is
// written to a temporary file, loaded with the deploy runtime's C API and run; the outputs come
// back as HostTensors. Each entry of `runs` compiles for `compile_threads` (one artifact per
// distinct count) and runs on a pool of `pool_threads`; every run after the first must agree
// with the first within the harness tolerance, so a bug in parallel loops cannot hide behind
// one thread count. Compiling is cheap (the whole must-support set takes seconds).
#pragma once

#include <vector>

#include "tests/conformance/conformance_case.h"

namespace tunefarm::conformance {

struct CompiledRun {
  int compile_threads = 1;
  int pool_threads = 1;
};

struct CompiledOptions {
  // 1 thread; 2 threads; the 2-thread code on a single-thread pool.
  std::vector<CompiledRun> runs = {{1, 1}, {2, 2}, {2, 1}};
};

absl::StatusOr<std::vector<HostTensor>> RunCompiled(const graph::Graph& g, const std::vector<HostTensor>& inputs,
                                                    const CompiledOptions& options = {});

// RunCompiled as a CaseExecutor.
CaseExecutor CompiledExecutor(CompiledOptions options = {});

}  // namespace tunefarm::conformance
