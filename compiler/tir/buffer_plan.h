// Which buffer each tensor of a scheduled DAG lives in: placeholders and outputs are kernel
// arguments (ABI order: inputs, then outputs); a "local" cache stage computed at a consumer's
// loop, or a stage computed at a loop of its only reader, gets a local buffer (allocated at that
// loop, shaped by the lowering); every other stage that is not inlined gets a 64-byte-aligned
// slot in the workspace. A layout-rewritten weight tensor is the parameter in its placeholder's
// place (the compiler computes it at build time).
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
  std::vector<int> attached_locals;  // local stages that are not "local" cache stages
};

// `in_workspace`: stages that stay in the workspace even though attached to their only reader
// (the lowering's fallback when such a region is too large for the stack).
BufferPlan PlanBuffers(const schedule::State& state, const std::vector<int>& in_workspace = {});

}  // namespace tunefarm::tir
