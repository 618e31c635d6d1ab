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
    if (scope == BufferScope::kWorkspace) {
      b.workspace_offset = plan.workspace_bytes;
      plan.workspace_bytes += (b.NumBytes() + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
    }
    plan.buffer_of_tensor[tensor] = static_cast<int>(plan.buffers.size());
    plan.buffers.push_back(std::move(b));
  };
  for (int id : dag.inputs()) add(id, BufferScope::kArg, dag.tensor(id).is_constant ? ArgRole::kParam : ArgRole::kInput);
  for (int id : dag.outputs()) add(id, BufferScope::kArg, ArgRole::kOutput);
  plan.num_args = static_cast<int>(plan.buffers.size());
  for (int id : dag.stages()) {
    bool inlined = state.stage(id).location == schedule::ComputeLocation::kInlined;
    if (plan.buffer_of_tensor[id] < 0 && !inlined) add(id, BufferScope::kWorkspace, ArgRole::kInput);
  }
  return plan;
}

}  // namespace tunefarm::tir
