// How a PrimFunc runs on a GPU: each top-level statement of its body is one kernel launch
// (statements in order, each launch finishing before the next starts, so a stage's output in
// global memory is complete before the next stage reads it). Inside a launch, loops bound to
// blockIdx.{x,y,z} and threadIdx.{x,y,z} become the launch's grid and block; every other loop
// runs inside each thread.
//
// PlanGpuLaunches is the lowering's check that the bindings are valid for the device:
//  - one extent per launch dimension: every loop bound to threadIdx.x in a launch has the same
//    extent (the launch has one blockDim.x);
//  - an axis bound inside a loop bound to the same axis is the same index (the block's threads
//    sharing out a cooperative fetch), so the inner nest may not use the outer loop's index,
//    sit under a condition on it, or store outside shared memory; no block axis inside a
//    thread axis;
//  - extents within the limits: threads per block, blockDim.z <= 64, gridDim.y/z <= 65535;
//  - a local buffer (a register tile) is allocated inside the thread bindings, where each
//    thread has its own copy of what it computes, never around them;
//  - a store to global memory lies inside a loop bound to each launch dimension of extent > 1
//    (else all threads along it write the same elements at once); a store to a shared buffer,
//    inside a loop bound to each thread dimension of extent > 1 within the buffer's Allocate;
//  - a thread's local buffers fit kMaxGpuLocalBytesPerThread, a block's shared buffers the
//    device's shared memory per block.
// A violation is an InvalidArgument error naming the function, the launch and the rule.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

struct GpuLimits {
  int64_t max_threads_per_block = 1024;
  int64_t max_shared_memory_per_block = 48 * 1024;
};

struct GpuLaunch {
  Stmt body;                            // run by every thread of the launch
  std::array<int64_t, 3> grid{1, 1, 1};   // gridDim.x, .y, .z
  std::array<int64_t, 3> block{1, 1, 1};  // blockDim.x, .y, .z
  int64_t shared_bytes = 0;             // static shared memory per block, alignment included
  int64_t local_bytes = 0;              // per thread: the local buffers (register tiles) it allocates
};

// What one GPU thread may hold in local memory (every part since compute capability 2.0).
inline constexpr int64_t kMaxGpuLocalBytesPerThread = 512 * 1024;
// What a kernel's static __shared__ arrays may hold on any part (beyond, ptxas refuses them;
// newer parts reach more only through dynamic shared memory).
inline constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
// Code generation aligns each shared array to 16 bytes (128-bit accesses), so a block's shared
// memory is the arrays' sizes rounded up to it: ptxas counts 148 bytes for arrays of 132 and 12.
inline constexpr int64_t kSharedArrayAlignment = 16;
inline int64_t SharedArrayBytes(int64_t bytes) {
  return (bytes + kSharedArrayAlignment - 1) / kSharedArrayAlignment * kSharedArrayAlignment;
}

absl::StatusOr<std::vector<GpuLaunch>> PlanGpuLaunches(const PrimFunc& f, const GpuLimits& limits);

}  // namespace tunefarm::tir
