#include "compiler/build/param_layouts.h"

#include <map>
#include <string>
#include <utility>

#include "common/strings.h"

namespace tunefarm::build {
namespace {

constexpr int64_t kParamAlignment = 64;

int64_t AlignUp(int64_t v) { return (v + kParamAlignment - 1) / kParamAlignment * kParamAlignment; }

int64_t ValueBytes(const PlanValue& v) { return v.type.NumElements() * te::DTypeBytes(v.type.dtype); }

// Drops parameter values that nothing reads any more and rebuilds the blob with the rest.
void DropUnreadParams(ExecutionPlan* plan) {
  std::vector<bool> read(plan->values.size(), false);
  for (const KernelCall& c : plan->calls)
    for (int v : c.args) read[v] = true;
  for (int v : plan->outputs) read[v] = true;
  for (int v : plan->inputs) read[v] = true;
  for (size_t v = 0; v < plan->values.size(); ++v)
    if (read[v] && plan->values[v].alias_of >= 0) read[plan->values[v].alias_of] = true;
  std::vector<int> new_id(plan->values.size(), -1);
  std::vector<PlanValue> kept;
  std::string blob;
  for (size_t v = 0; v < plan->values.size(); ++v) {
    PlanValue value = plan->values[v];
    if (value.space == ValueSpace::kParam) {
      if (!read[v]) continue;
      if (value.alias_of < 0) {
        blob.resize(AlignUp(static_cast<int64_t>(blob.size())), '\0');
        const int64_t offset = static_cast<int64_t>(blob.size());
        blob.append(plan->params, value.offset, ValueBytes(value));
        value.offset = offset;
      }
    }
    new_id[v] = static_cast<int>(kept.size());
    kept.push_back(std::move(value));
  }
  for (PlanValue& value : kept)
    if (value.alias_of >= 0) {
      value.alias_of = new_id[value.alias_of];
      if (value.space == ValueSpace::kParam) value.offset = kept[value.alias_of].offset;
    }
  for (KernelCall& c : plan->calls)
    for (int& v : c.args) v = new_id[v];
  for (int& v : plan->inputs) v = new_id[v];
  for (int& v : plan->outputs) v = new_id[v];
  std::vector<int64_t> offsets;  // the memory plan's per-value offsets (external: -1)
  for (size_t v = 0; v < new_id.size(); ++v)
    if (new_id[v] >= 0) offsets.push_back(v < plan->memory.offsets.size() ? plan->memory.offsets[v] : -1);
  plan->memory.offsets = std::move(offsets);
  plan->values = std::move(kept);
  plan->params = std::move(blob);
}

}  // namespace

absl::Status ApplyParamLayouts(const std::vector<std::vector<tir::RewrittenParam>>& rewritten, ExecutionPlan* plan) {
  bool any = false;
  std::map<std::pair<int, std::string>, int> done;  // (weights value, layout) -> rewritten value
  for (KernelCall& call : plan->calls) {
    for (const tir::RewrittenParam& rp : rewritten[call.task]) {
      const int source = call.args[rp.arg];
      const PlanValue& weights = plan->values[source];
      if (weights.space != ValueSpace::kParam)
        return absl::FailedPreconditionError(StrCat("kernel ", plan->tasks[call.task].kernel_name, " (", call.group,
                                                    ") rewrites the layout of argument ", rp.arg, ", '", weights.name,
                                                    "', which is not a model constant"));
      const std::string layout = rp.transform->WorkloadKey();
      auto [it, inserted] = done.emplace(std::make_pair(source, layout), -1);
      if (inserted) {
        auto bytes = tir::TransformWeights(*rp.transform, std::string_view(plan->params).substr(weights.offset, ValueBytes(weights)));
        if (!bytes.ok())
          return absl::Status(bytes.status().code(), StrCat("weights '", weights.name, "': ", std::string(bytes.status().message())));
        const te::TensorDef& out = rp.transform->tensor(rp.transform->outputs()[0]);
        PlanValue v;
        v.name = StrCat(weights.name, ".layout");
        v.type = graph::TensorType{out.dtype, out.shape};
        v.space = ValueSpace::kParam;
        plan->params.resize(AlignUp(static_cast<int64_t>(plan->params.size())), '\0');
        v.offset = static_cast<int64_t>(plan->params.size());
        plan->params.append(*bytes);
        plan->values.push_back(std::move(v));
        it->second = static_cast<int>(plan->values.size()) - 1;
      }
      call.args[rp.arg] = it->second;
      any = true;
    }
  }
  if (any) DropUnreadParams(plan);
  return absl::OkStatus();
}

}  // namespace tunefarm::build
