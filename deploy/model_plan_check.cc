// The checks that relate a plan's calls to its values and to the kernel metadata: what makes
// every kernel call of a run safe (ABI: dense, 64-byte aligned, non-aliasing arguments of the
// declared dtype and shape, outputs never in the read-only parameter blob).
#include <string>

#include "deploy/model_plan.h"
#include "deploy/tunefarm_abi.h"

namespace tunefarm::deploy {
namespace {

bool Overlap(const PlanValue& a, const PlanValue& b) {
  if (a.space != b.space || a.bytes == 0 || b.bytes == 0) return false;
  return a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

Status CallError(const ModelPlan& plan, size_t call, const std::string& what) {
  return Status(StatusCode::kBadPlan, DescribeCall(plan, call) + ": " + what);
}

std::string Argument(const ModelPlan& plan, const PlanCall& call, size_t arg) {
  return "argument " + std::to_string(arg) + " (" + DescribeValue(plan, call.args[arg]) + ")";
}

}  // namespace

Status CheckPlanCalls(const ModelPlan& plan) {
  for (size_t c = 0; c < plan.calls.size(); ++c) {
    const PlanCall& call = plan.calls[c];
    for (size_t i = 0; i < call.args.size(); ++i) {
      const PlanValue& value = plan.values[call.args[i]];
      if (value.offset % TUNEFARM_BUFFER_ALIGNMENT != 0) {
        return CallError(plan, c, Argument(plan, call, i) + " is at offset " + std::to_string(value.offset) +
                                      ", not a multiple of " + std::to_string(TUNEFARM_BUFFER_ALIGNMENT));
      }
      if (i >= static_cast<size_t>(call.num_inputs) && value.space == ValueSpace::kParam) {
        return CallError(plan, c, Argument(plan, call, i) + " is an output in the read-only param space");
      }
      for (size_t j = 0; j < i; ++j) {
        if (Overlap(value, plan.values[call.args[j]])) {
          return CallError(plan, c, Argument(plan, call, i) + " overlaps " + Argument(plan, call, j));
        }
      }
    }
  }
  return Status();
}

Status CheckPlanAgainstKernels(const ModelPlan& plan, const KernelMetadata& metadata) {
  for (size_t c = 0; c < plan.calls.size(); ++c) {
    const PlanCall& call = plan.calls[c];
    const EntryInfo* entry = metadata.FindEntry(call.kernel);
    if (entry == nullptr) {
      std::string known;
      for (const EntryInfo& e : metadata.entries) known += (known.empty() ? "" : ", ") + e.name;
      return CallError(plan, c, "the library has no kernel \"" + call.kernel + "\" (kernels: " + known + ")");
    }
    if (call.args.size() != entry->args.size()) {
      return CallError(plan, c, "passes " + std::to_string(call.args.size()) + " arguments, the kernel takes " +
                                    std::to_string(entry->args.size()));
    }
    int32_t kernel_inputs = 0;
    for (const ArgInfo& arg : entry->args) kernel_inputs += arg.role != ArgRole::kOut ? 1 : 0;
    if (call.num_inputs != kernel_inputs) {
      return CallError(plan, c, "num_inputs is " + std::to_string(call.num_inputs) + ", the kernel has " +
                                    std::to_string(kernel_inputs) + " inputs");
    }
    for (size_t i = 0; i < call.args.size(); ++i) {
      const PlanValue& value = plan.values[call.args[i]];
      const ArgInfo& arg = entry->args[i];
      if (value.dtype != arg.dtype || value.shape != arg.shape) {
        return CallError(plan, c, Argument(plan, call, i) + " is " + value.dtype + " " + ShapeText(value.shape) +
                                      ", the kernel's argument \"" + arg.name + "\" is " + arg.dtype + " " +
                                      ShapeText(arg.shape));
      }
    }
  }
  return Status();
}

}  // namespace tunefarm::deploy
