// Candidates → kernel .so files for the farm: each candidate lowered and compiled for the job's
// target on its own (one object, any worker), then a batch of them linked into one library
// with one entry per candidate, described by the metadata the agent checks before loading it.
// For a GPU (cuda) target the library is one PTX module: PTX does not link, so "compiling" a
// candidate only lowers it, and the batch's module is generated when it is "linked".
// One library per batch means one link, one upload and one agent cache entry per batch
// (docs/tuner.md "Build workers").
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/stmt.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::tuner {

// The entry of a library that holds one kernel (a task's reference); in a batch library the
// k-th candidate's entry is BatchEntry(k) = "tf_tune_<k>".
inline constexpr char kTuneEntry[] = "tf_tune";
std::string BatchEntry(size_t k);
// A candidate whose schedule rewrites the layout of constant weights (the "LR" step) also
// exports <entry>_layout<k>, which makes its k-th rewritten argument from the original weights;
// the agent runs it once, untimed, on the weights it generated (kernel metadata "prepared_by").

struct BuiltKernel {
  std::string bytes;   // the shared object, or the PTX text for a GPU
  std::string sha256;  // of bytes: its name on the agent
  v1::KernelMetadata metadata;
};

// One candidate compiled, waiting to be linked with others.
struct KernelObject {
  std::string object;                // ELF relocatable, without the ABI globals; empty for a GPU
  std::vector<tir::PrimFunc> funcs;  // its entry, then its layout entries: for the metadata
};

// Lowering or code generation failing is an error: the tuner records it as a build error.
// `lowered`: the state's program already lowered (any name: the entry is renamed `entry`),
// or null to lower it here.
absl::StatusOr<KernelObject> CompileKernel(const schedule::State& state, const codegen::Target& target,
                                           const tir::PrimFunc* lowered, const std::string& entry);
// One library of `objects` (their entry names distinct), with the ABI globals describing them all.
absl::StatusOr<BuiltKernel> LinkKernels(std::span<const KernelObject* const> objects, const codegen::Target& target);

// A farm call's objects linked: all in one library or, should they not link together, each
// alone, so that a bad object costs only its own program.
struct LinkedObjects {
  std::vector<std::unique_ptr<BuiltKernel>> libraries;
  std::vector<const BuiltKernel*> library_of;  // per object; null when it did not link
  std::vector<std::string> errors;             // per object; empty when it linked
};
LinkedObjects LinkObjects(std::span<const KernelObject* const> objects, const codegen::Target& target);

// A library of one kernel, entry kTuneEntry.
absl::StatusOr<BuiltKernel> BuildKernel(const schedule::State& state, const codegen::Target& target,
                                        const tir::PrimFunc* lowered = nullptr);

}  // namespace tunefarm::tuner
