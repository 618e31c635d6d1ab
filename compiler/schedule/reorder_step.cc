#include "common/strings.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {

absl::Status ApplyReorder(const ReorderStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "RE", step.stage, -1); !s.ok()) return s;
  const Stage& stage = state->stage(step.stage);
  size_t n = stage.iters.size();
  if (step.order.size() != n)
    return StepError("RE", step.stage, -1, StrCat("order has ", step.order.size(), " iterators, the stage has ", n));
  std::vector<bool> seen(n, false);
  for (int i : step.order) {
    if (i < 0 || i >= static_cast<int>(n) || seen[i])
      return StepError("RE", step.stage, -1, "order is not a permutation of the stage's iterators");
    seen[i] = true;
  }
  std::vector<Iterator> reordered;
  bool reduce_seen = false;
  for (size_t pos = 0; pos < n; ++pos) {
    const Iterator& it = stage.iters[step.order[pos]];
    if (it.annotation == IterAnnotation::kVectorize && pos + 1 != n)
      return StepError("RE", step.stage, -1, "a vectorized iterator must stay innermost");
    if ((it.annotation == IterAnnotation::kParallel || IsThreadBinding(it.annotation)) && reduce_seen)
      return StepError("RE", step.stage, -1,
                       StrCat("a ", IterAnnotationName(it.annotation), " iterator cannot move inside a reduce iterator"));
    reduce_seen |= stage.nodes[it.node].kind == IterKind::kReduce;
    reordered.push_back(it);
  }
  state->mutable_stage(step.stage).iters = std::move(reordered);
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
