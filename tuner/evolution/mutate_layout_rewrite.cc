// Layout rewrite: one constant (model weights) toggles between its original layout and its
// reader's tile order. Not one of Ansor's rules: Ansor decides the rewrite once per task, while
// random annotation here draws it per program with probability 1/2, and without this rule a
// program kept that draw for life, so evolution could never try the better tile sizes of a
// parent with the other layout.
#include <utility>

#include "tuner/evolution/mutation_rules.h"
#include "tuner/evolution/step_edit.h"
#include "tuner/search_space/random_annotation.h"

namespace tunefarm::tuner {

using schedule::State;
using schedule::Step;

absl::StatusOr<State> MutateLayoutRewrite(const State& parent, const SearchTarget&, std::mt19937_64& rng) {
  std::vector<Step> steps = parent.steps();
  // Layout rewrites sit where annotation draws them: after the location steps, before the
  // parallel, vectorize and unroll steps. Replay up to there to see which constants could
  // still be rewritten, and which rewrites the program has.
  const size_t end = AnnotationEnd(steps);
  auto before = ReplaySteps(parent.original_dag(), std::vector<Step>(steps.begin(), steps.begin() + end));
  if (!before.ok()) return before.status();
  std::vector<size_t> rewrites;
  for (size_t i = 0; i < end; ++i)
    if (std::holds_alternative<schedule::LayoutRewriteStep>(steps[i])) rewrites.push_back(i);
  const std::vector<std::pair<int, int>> rewritable = RewritableConstants(*before);
  const size_t options = rewrites.size() + rewritable.size();
  if (options == 0) return absl::FailedPreconditionError("no constant whose layout could change");

  const size_t pick = rng() % options;
  if (pick < rewrites.size()) {
    // Back to the original layout: the step goes, and the stage it inserted (placeholder + 1)
    // with it. Nothing schedules a layout stage, so no later step names it.
    const size_t pos = rewrites[pick];
    const int inserted = std::get<schedule::LayoutRewriteStep>(steps[pos]).stage + 1;
    for (size_t i = pos + 1; i < steps.size(); ++i)
      if (StepStage(steps[i]) == inserted)
        return absl::FailedPreconditionError("a later step schedules the rewritten layout");
    if (auto s = EraseStep(&steps, pos); !s.ok()) return s;
    ShiftStages(&steps, pos, inserted, -1);
  } else {
    const auto [placeholder, reader] = rewritable[pick - rewrites.size()];
    ShiftStages(&steps, end, placeholder + 1, 1);
    InsertStep(&steps, end, schedule::LayoutRewriteStep{placeholder, reader});
  }
  return ReplaySteps(parent.original_dag(), steps);
}

}  // namespace tunefarm::tuner
