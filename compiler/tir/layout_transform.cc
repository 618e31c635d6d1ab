#include "compiler/tir/layout_transform.h"

#include <optional>

#include "common/strings.h"
#include "compiler/tir/buffer_plan.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"

namespace tunefarm::tir {

std::vector<RewrittenParam> RewrittenParams(const schedule::State& state) {
  const te::ComputeDag& dag = state.dag();
  std::optional<BufferPlan> plan;  // planned only for a state that has a rewrite (the tuner asks of every candidate)
  std::vector<RewrittenParam> out;
  for (int t = 0; t < dag.num_tensors(); ++t) {
    if (state.stage(t).scope != schedule::kLayoutScope) continue;
    if (!plan) plan = PlanBuffers(state);
    const te::TensorDef& layout = dag.tensor(t);
    int source = -1;
    te::Visit(layout.body, [&](const te::Expr& e) {
      if (e->kind == te::ExprKind::kLoad) source = static_cast<int>(e->int_value);
    });
    te::TensorDef weights = dag.tensor(source);
    te::TensorDef rewritten = layout;
    rewritten.body = te::Rewrite(layout.body, [&](const te::Expr& e) -> te::Expr {
      return e->kind == te::ExprKind::kLoad ? te::Load(e->dtype, 0, e->operands) : te::Expr();
    });
    auto transform = std::make_shared<const te::ComputeDag>(std::vector<te::TensorDef>{weights, rewritten},
                                                            std::vector<int>{1});
    out.push_back({plan->buffer_of_tensor[t], std::move(transform)});
  }
  return out;
}

absl::StatusOr<std::string> TransformWeights(const te::ComputeDag& transform, std::string_view weights) {
  const te::TensorDef& source = transform.tensor(0);
  const int64_t want = source.NumElements() * te::DTypeBytes(source.dtype);
  if (static_cast<int64_t>(weights.size()) != want)
    return absl::InvalidArgumentError(
        StrCat("weights ", source.name, " have ", weights.size(), " bytes; the layout rewrite expects ", want));
  auto f = Lower(schedule::State(std::shared_ptr<const te::ComputeDag>(&transform, [](const te::ComputeDag*) {})),
                 "layout_rewrite");
  if (!f.ok()) return f.status();
  const te::TensorDef& result = transform.tensor(transform.outputs()[0]);
  std::string in(weights);
  std::string out(result.NumElements() * te::DTypeBytes(result.dtype), '\0');
  if (auto s = Interpret(*f, {in.data(), out.data()}); !s.ok()) return s;
  return out;
}

absl::StatusOr<std::map<int, std::string>> TransformRewrittenArgs(
    const schedule::State& state, const std::function<std::string_view(int arg)>& original) {
  std::map<int, std::string> out;
  for (const RewrittenParam& rp : RewrittenParams(state)) {
    absl::StatusOr<std::string> bytes = TransformWeights(*rp.transform, original(rp.arg));
    if (!bytes.ok()) return bytes.status();
    out[rp.arg] = std::move(*bytes);
  }
  return out;
}

}  // namespace tunefarm::tir
