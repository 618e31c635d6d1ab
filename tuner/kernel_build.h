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
// A candidate whose schedule rewrites the layout of constant weights (the "LR" step) also
// exports tf_tune_layout<k>, which makes its k-th rewritten argument from the original weights;
// the agent runs it once, untimed, on the weights it generated (kernel metadata "prepared_by").
inline constexpr char kTuneLayoutEntryPrefix[] = "tf_tune_layout";

struct BuiltKernel {
  std::string bytes;   // the shared object
  std::string sha256;  // of bytes: its name on the agent
  v1::KernelMetadata metadata;
};

// Lowering or code generation failing is an error: the tuner records it as a build error.
// `lowered`: the state's program already lowered (any name: the entry is renamed kTuneEntry),
// or null to lower it here.
absl::StatusOr<BuiltKernel> BuildKernel(const schedule::State& state, const codegen::Target& target,
                                        const tir::PrimFunc* lowered = nullptr);

}  // namespace tunefarm::tuner
