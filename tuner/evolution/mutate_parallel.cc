// Parallel (Ansor's MutateParallel): a stage's parallel loop fuses another number of its outer
// loops.
#include <algorithm>

#include "tuner/evolution/mutation_rules.h"
#include "tuner/evolution/step_edit.h"

namespace tunefarm::tuner {
namespace {

// How many outer loops of `stage` a parallel fuse may take in `s` (random annotation's
// Parallelize without its stop at `cores` iterations): unannotated space loops, a loop hosting
// other stages only as the last, and never the innermost one unless it is the only loop.
int MaxFused(const schedule::State& s, int stage) {
  const schedule::Stage& st = s.stage(stage);
  const int n = static_cast<int>(st.iters.size());
  int count = 0;
  while (count < n && !(count == n - 1 && count > 0)) {
    const schedule::Iterator& it = st.iters[count];
    if (st.nodes[it.node].kind == schedule::IterKind::kReduce || it.annotation != schedule::IterAnnotation::kNone) break;
    ++count;
    if (!s.AttachedAt(stage, it.node).empty()) break;
  }
  return count;
}

}  // namespace

absl::StatusOr<schedule::State> MutateParallel(const schedule::State& parent, const SearchTarget&,
                                               std::mt19937_64& rng) {
  std::vector<schedule::Step> steps = parent.steps();
  std::vector<ParallelGroup> groups = FindParallelGroups(steps);
  if (groups.empty()) return absl::FailedPreconditionError("no parallel loop");
  const ParallelGroup group = groups[rng() % groups.size()];
  const int first = group.fuse_step >= 0 ? group.fuse_step : group.annotate_step;
  auto before = ReplaySteps(parent.original_dag(), std::vector<schedule::Step>(steps.begin(), steps.begin() + first));
  if (!before.ok()) return before.status();
  const int max_fused = MaxFused(*before, group.stage);
  std::vector<int> choices;
  for (int c = 1; c <= max_fused; ++c)
    if (c != group.fused) choices.push_back(c);
  if (choices.empty()) return absl::FailedPreconditionError("no other number of loops to fuse");
  if (auto s = SetParallelFused(&steps, group, choices[rng() % choices.size()]); !s.ok()) return s;
  return ReplaySteps(parent.original_dag(), steps);
}

}  // namespace tunefarm::tuner
