// Test helper: a graph compiled for the host into a model artifact and run through the deploy
// runtime's C API, as a user's program would.
#pragma once

#include <string>
#include <vector>

#include "compiler/build/model_builder.h"
#include "compiler/graph/graph.h"

namespace tunefarm::build {

// Build options for the host at `threads` threads.
BuildOptions HostOptions(int threads);

// Compiles `g`, sets `inputs` (raw bytes, in order), runs on 2 threads, returns every output's
// bytes. Failures are reported to gtest (and give fewer outputs).
std::vector<std::string> CompileAndRun(const graph::Graph& g, const std::vector<std::string>& inputs);

}  // namespace tunefarm::build
