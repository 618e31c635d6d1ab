// Barriers for GPU shared memory, inserted into each launch just before code generation.
//
// The loop IR's reading (bound loops run in turn) needs none: a block's cooperative fetch into a
// shared tile is complete before the loop that reads it starts. On the GPU the block's threads
// run at once, so:
//  - read after write: in a sequence, a statement that reads a shared buffer which an earlier
//    statement of the sequence wrote (since the last barrier) gets a barrier before it, so every
//    thread's part of the fetch is in place before any thread reads the tile; likewise a
//    statement that writes a shared buffer an earlier one read (write after read);
//  - write after read: a loop that is not bound, whose body both writes and reads shared memory
//    (the reduction loop around a fetch and its use), ends each iteration with a barrier, so the
//    next iteration's fetch cannot overwrite what a slower thread is still reading.
// Every thread of the block must reach a barrier: one that would sit under a condition on a
// thread index (a guarded tail of the thread loops) is an InvalidArgument error naming the
// function. A launch without shared buffers comes back as it was.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

absl::StatusOr<Stmt> InsertSharedMemoryBarriers(const PrimFunc& f, const Stmt& launch_body);

// What code generation would refuse in a GPU kernel: launches over `limits` (PlanGpuLaunches),
// barriers that cannot be placed. The tuner's candidate check and the build's check of a
// caller's default schedule.
absl::Status CheckGpuLaunches(const PrimFunc& f, const GpuLimits& limits);

}  // namespace tunefarm::tir
