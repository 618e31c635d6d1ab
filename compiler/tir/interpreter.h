// A direct interpreter of the loop IR: slow and simple, so tests can check many schedules
// without compiling them. Parallel and vectorized loops run serially (their iterations are
// independent by construction). Every load and store is bounds-checked: an out-of-bounds
// access is an error naming the buffer and index, which is how lowering bugs show up.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

// args: one pointer per kernel argument (f.buffers[0..num_args)), dense. The workspace is
// allocated here.
absl::Status Interpret(const PrimFunc& f, const std::vector<void*>& args);

}  // namespace tunefarm::tir
