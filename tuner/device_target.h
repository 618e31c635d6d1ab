// The tuner maps an agent's raw hardware facts to a canonical target string (DESIGN.md
// "Target"): the agent has no LLVM, the tuner does.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::tuner {

// `requested` (a job's explicit target) when not empty, parsed to its canonical form.
// Otherwise: when the facts describe this very machine (same architecture, CPU model and ISA
// flags: a local farm), the host target, which is also what `tunefarm compile` uses by
// default, so the records are found without a --target; else the device's architecture with
// the vector features its flags list, and its core count and caches: on x86 a generic CPU; on
// AArch64 the core its implementer and part name (proto/arm_cpus.h), generic when unknown.
// A GPU agent (facts with gpus) gets "cuda -arch=sm_NN" and its GPU's limits, whatever its CPU.
absl::StatusOr<codegen::Target> TargetForDevice(const v1::HardwareFacts& facts,
                                                const std::string& requested);

}  // namespace tunefarm::tuner
