// One candidate → one kernel .so for the farm: lowered, compiled for the job's target (one
// entry per library) and described by the metadata the agent checks before loading it.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/stmt.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::tuner {

// Every tuning kernel exports this entry (reference and candidates live in separate libraries).
inline constexpr char kTuneEntry[] = "tf_tune";

struct BuiltKernel {
  std::string bytes;   // the shared object
  std::string sha256;  // of bytes: its name on the agent
  v1::KernelMetadata metadata;
};

// Lowering or code generation failing is an error: the tuner records it as a build error.
absl::StatusOr<BuiltKernel> BuildKernel(const schedule::State& state, const codegen::Target& target);
// The same from a program already lowered (named anything: the entry is renamed kTuneEntry).
absl::StatusOr<BuiltKernel> BuildKernel(tir::PrimFunc func, const codegen::Target& target);

}  // namespace tunefarm::tuner
