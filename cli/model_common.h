// What the model commands (compile, inspect) share: importing a model with --input-shape
// and turning --target / --threads into build options.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "common/command_flags.h"
#include "compiler/build/model_builder.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/host_tensor.h"

namespace tunefarm::cli {

// Imports MODEL.onnx, with --input-shape NAME=D,D,... (repeatable) for symbolic dimensions and
// --bind NAME=FILE (repeatable) for graph inputs whose values are fixed at compile time.
absl::StatusOr<graph::Graph> ImportModel(const std::string& path, const ParsedFlags& flags);

// The largest value --bind reads: they are shape-like operands (a Reshape's shape, Slice's
// starts, Pad's pads), or at most a weight a model takes as an input.
inline constexpr uint64_t kMaxBoundInputBytes = uint64_t{1} << 30;
// One --bind NAME=FILE: the name and the tensor in FILE (.npy or ONNX TensorProto .pb).
absl::StatusOr<std::pair<std::string, graph::HostTensor>> ReadBoundInput(const std::string& spec);

// --target (default: this machine) and --threads (default `default_threads`).
absl::StatusOr<build::BuildOptions> BuildOptionsFromFlags(const ParsedFlags& flags, int default_threads);

}  // namespace tunefarm::cli
