// The simplest correct schedule for a GPU (a cuda target): one thread per output point. Two
// rules, applied to every stage:
//   1. inline  strictly inlinable stages (elementwise, padding) are inlined: on a GPU
//              recomputing them where they are read costs a few instructions, a stage of its
//              own costs a launch and a trip through global memory;
//   2. bind    every other stage at the root: its space axes fused into one, split by the
//              block size, the outer loop bound to blockIdx.x and the inner to threadIdx.x.
//              Each thread computes one output point, its reduce loops inside it.
// A stage without space axes (a scalar) runs as a single thread. Each root stage is a launch
// of its own (tir/gpu_launch.h). Correct and general, not fast. It is the tuner's reference
// for GPU candidates (it shares no tiling, shared memory or virtual threads with what it
// checks), and the fallback where the default program (tuner/search_space/
// gpu_default_program.h, shared and register tiles by fixed rules) cannot be built.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"

namespace tunefarm::schedule {

struct GpuRuleContext {
  int64_t threads_per_block = 256;  // the block size when no divisor of the extent is as good
};

// Rule 2 on one root stage: its space loops fused, split by a block size near
// `threads_per_block` (the extent when it fits; else the largest divisor down to half of it; else
// a guarded last block), bound to blockIdx.x and threadIdx.x. The tuner's GPU annotation binds
// every stage it does not tile this way, with a block size it draws.
absl::Status BindToBlocksAndThreads(State* s, int stage, int64_t threads_per_block);

absl::StatusOr<State> ApplyGpuThreadPerPointSchedule(std::shared_ptr<const te::ComputeDag> dag, const GpuRuleContext& ctx,
                                              std::vector<std::string>* applied = nullptr);

}  // namespace tunefarm::schedule
