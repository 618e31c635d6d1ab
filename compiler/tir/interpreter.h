// A direct interpreter of the loop IR: slow and simple, so tests can check many schedules
// without compiling them. Parallel and vectorized loops run serially (their iterations are
// independent by construction). Every load and store is bounds-checked: an out-of-bounds
// access is an error naming the buffer and index, which is how lowering bugs show up.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

// args: one pointer per kernel argument (f.buffers[0..num_args)), dense. The workspace is
// allocated here. Bound loops run as serial loops (stmt.h).
absl::Status Interpret(const PrimFunc& f, const std::vector<void*>& args);

// One GPU thread of a launch, for gpu_interpreter.h: a bound loop takes the thread's index
// along its axis instead of looping, a shared buffer is the block's storage, and a barrier
// calls `barrier` (false: the block can never pass it, which is an error).
struct GpuThreadContext {
  std::array<int64_t, 3> block_index{0, 0, 0};
  std::array<int64_t, 3> thread_index{0, 0, 0};
  std::vector<char*> shared;  // per buffer of the function: the block's storage, or null
  std::function<bool()> barrier;
};
absl::Status InterpretGpuThread(const PrimFunc& f, const Stmt& launch_body, const std::vector<void*>& args,
                                char* workspace, const GpuThreadContext& thread);

}  // namespace tunefarm::tir
