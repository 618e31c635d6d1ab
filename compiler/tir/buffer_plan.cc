#include "compiler/tir/buffer_plan.h"

namespace tunefarm::tir {

constexpr int64_t kWorkspaceAlign = 64;

BufferPlan PlanBuffers(const schedule::State& state) {
  const te::ComputeDag& dag = state.dag();
  BufferPlan plan;
  plan.buffer_of_tensor.assign(dag.num_tensors(), -1);
  auto add = [&](int tensor, BufferScope scope, ArgRole role) {
    const te::TensorDef& t = dag.tensor(tensor);
    Buffer b{t.name, t.dtype, t.shape, scope, role};
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
    // A "local" cache stage computed at a consumer's loop gets a local buffer, shaped by the
    // lowering once the region is known; at the root it is an ordinary workspace buffer.
    bool local = stage.scope == "local" && stage.location == schedule::ComputeLocation::kAt;
    add(id, local ? BufferScope::kLocal : BufferScope::kWorkspace, ArgRole::kInput);
  }
  return plan;
}

}  // namespace tunefarm::tir
