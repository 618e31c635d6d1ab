#include "compiler/tir/buffer_plan.h"

#include <algorithm>
#include <set>

namespace tunefarm::tir {
namespace {

constexpr int64_t kWorkspaceAlign = 64;

// The stages that read `tensor`, looking through inlined readers to the stages their bodies are
// substituted into.
void CollectReaders(const schedule::State& state, int tensor, std::set<int>* readers) {
  for (int r : state.dag().consumers(tensor)) {
    if (state.stage(r).location == schedule::ComputeLocation::kInlined)
      CollectReaders(state, r, readers);
    else
      readers->insert(r);
  }
}

// A stage computed at a loop of the one stage that reads it (Ansor's tile+fuse: a conv computed
// at its epilogue's tile) is produced and consumed within one iteration of that loop, so like a
// "local" cache stage it needs only that iteration's region: a register tile, not a whole
// tensor that every tile writes to and reads back from memory. TVM's lowering allocates every
// attached stage this way.
bool ReadOnlyWhereAttached(const schedule::State& state, int tensor) {
  const schedule::Stage& stage = state.stage(tensor);
  if (stage.location != schedule::ComputeLocation::kAt) return false;
  std::set<int> readers;
  CollectReaders(state, tensor, &readers);
  return readers == std::set<int>{stage.attach_stage};
}

}  // namespace

BufferPlan PlanBuffers(const schedule::State& state, const std::vector<int>& in_workspace) {
  const te::ComputeDag& dag = state.dag();
  BufferPlan plan;
  plan.buffer_of_tensor.assign(dag.num_tensors(), -1);
  auto add = [&](int tensor, BufferScope scope, ArgRole role) {
    const te::TensorDef& t = dag.tensor(tensor);
    Buffer b;
    b.name = t.name;
    b.dtype = t.dtype;
    b.shape = t.shape;
    b.scope = scope;
    b.role = role;
    if (scope == BufferScope::kWorkspace) {  // (a local buffer's shape is set by the lowering)
      b.workspace_offset = plan.workspace_bytes;
      plan.workspace_bytes += (b.NumBytes() + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
    }
    plan.buffer_of_tensor[tensor] = static_cast<int>(plan.buffers.size());
    plan.buffers.push_back(std::move(b));
  };
  for (int id : dag.inputs()) {
    // Weights with a rewritten layout: the kernel takes the rewritten tensor in their place.
    const std::vector<int>& readers = dag.consumers(id);
    if (readers.size() == 1 && state.stage(readers[0]).scope == schedule::kLayoutScope) {
      add(readers[0], BufferScope::kArg, ArgRole::kParam);
      continue;
    }
    add(id, BufferScope::kArg, dag.tensor(id).is_constant ? ArgRole::kParam : ArgRole::kInput);
  }
  for (int id : dag.outputs()) add(id, BufferScope::kArg, ArgRole::kOutput);
  plan.num_args = static_cast<int>(plan.buffers.size());
  for (int id : dag.stages()) {
    const schedule::Stage& stage = state.stage(id);
    if (plan.buffer_of_tensor[id] >= 0 || stage.location == schedule::ComputeLocation::kInlined) continue;
    // A "local" cache stage computed at a consumer's loop, or any stage computed at a loop of
    // its only reader, gets a local buffer, shaped by the lowering once the region is known; at
    // the root it is an ordinary workspace buffer.
    // A "shared" one likewise, in a GPU block's shared memory (its region spans the block's threads).
    const bool cache_local = stage.scope == "local" && stage.location == schedule::ComputeLocation::kAt;
    const bool cache_shared = stage.scope == "shared" && stage.location == schedule::ComputeLocation::kAt;
    const bool attached_local = !cache_local && !cache_shared && ReadOnlyWhereAttached(state, id) &&
                                std::find(in_workspace.begin(), in_workspace.end(), id) == in_workspace.end();
    if (attached_local) plan.attached_locals.push_back(id);
    const bool local = cache_local || attached_local;
    add(id, cache_shared ? BufferScope::kShared : local ? BufferScope::kLocal : BufferScope::kWorkspace, ArgRole::kInput);
  }
  return plan;
}

}  // namespace tunefarm::tir
