// What the model commands (compile, inspect) share: importing a model with --input-shape
// and turning --target / --threads into build options.
#pragma once

#include "absl/status/statusor.h"
#include "common/command_flags.h"
#include "compiler/build/model_builder.h"
#include "compiler/graph/graph.h"

namespace tunefarm::cli {

// Imports MODEL.onnx, with --input-shape NAME=D,D,... (repeatable) for symbolic dimensions and
// --bind NAME=FILE (repeatable) for graph inputs whose values are fixed at compile time.
absl::StatusOr<graph::Graph> ImportModel(const std::string& path, const ParsedFlags& flags);

// --target (default: this machine), --threads (default `default_threads`) and, for a cuda
// target, --untuned-gpu (the default GPU program unless "thread-per-point").
absl::StatusOr<build::BuildOptions> BuildOptionsFromFlags(const ParsedFlags& flags, int default_threads);

}  // namespace tunefarm::cli
