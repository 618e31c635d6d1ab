// Which buffer each tensor of a scheduled DAG lives in: placeholders and outputs are kernel
// arguments (ABI order: inputs, then outputs); a "local" cache stage computed at a consumer's
// loop gets a local buffer (allocated at that loop, shaped by the lowering); every other stage
// that is not inlined gets a 64-byte-aligned slot in the workspace. A layout-rewritten weight
// tensor is the parameter in its placeholder's place (the compiler computes it at build time).
#pragma once

#include <vector>

#include "compiler/schedule/state.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

struct BufferPlan {
  std::vector<Buffer> buffers;
  std::vector<int> buffer_of_tensor;  // -1 for inlined stages
  int num_args = 0;
  int64_t workspace_bytes = 0;
};

BufferPlan PlanBuffers(const schedule::State& state);

}  // namespace tunefarm::tir
