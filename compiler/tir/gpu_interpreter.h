// A GPU PrimFunc interpreted as the device runs it, to check what the serial reading cannot:
// that the barriers make a kernel using shared memory correct when a block's threads run at
// once. Each launch (gpu_launch.h, with its barriers inserted: gpu_barriers.h) runs block by
// block; each thread of a block is an interpreter of its own, with its block and thread indices
// fixed, sharing the block's shared buffers (fresh, filled with 0xff bytes: NaN for floats) and
// the global memory.
//
// The threads of a block take turns in a fixed order: thread 0 runs until its next barrier (or
// its end), then thread 1, and so on; when all have arrived the next phase starts. This is one
// legal GPU interleaving, and an adversarial one for a missing barrier: thread 0 reads the
// tile before the others have fetched their part, or fetches the next tile while they still
// read the current one, and the result shows it. A block whose threads do not all reach the
// same barriers is an error. Slow (an OS thread per GPU thread): for tests.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

// args as for Interpret (interpreter.h). insert_barriers false runs the function's own barriers
// only (a test's way to show what a missing one does).
absl::Status InterpretAsGpu(const PrimFunc& f, const std::vector<void*>& args, const GpuLimits& limits = GpuLimits{},
                            bool insert_barriers = true);

}  // namespace tunefarm::tir
