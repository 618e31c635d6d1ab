#include "tuner/search_space/compute_location_choices.h"

#include "compiler/schedule/compute_at_check.h"

namespace tunefarm::tuner {

using schedule::ComputeLocation;
using schedule::State;
using schedule::Step;

bool HostsStages(const State& s, int stage) {
  for (const schedule::Stage& st : s.stages())
    if (st.location == ComputeLocation::kAt && st.attach_stage == stage) return true;
  return false;
}

bool Relocatable(const State& s, int stage) {
  const schedule::Stage& st = s.stage(stage);
  const te::StageAnalysis& a = s.dag().analysis(st.tensor_id);
  return !st.is_placeholder && st.scope != schedule::kLayoutScope && st.scope != "shared" &&
         st.location != ComputeLocation::kInlined && !a.is_output && !a.needs_multi_level_tiling && s.IsUntouched(stage) &&
         !HostsStages(s, stage);
}

std::vector<Step> ComputeLocationChoices(const State& s, int stage) {
  std::vector<Step> out;
  if (!s.dag().analysis(s.stage(stage).tensor_id).has_reduction) out.push_back(schedule::ComputeInlineStep{stage});
  out.push_back(schedule::ComputeRootStep{stage});
  // Stages are in topological order: every stage that reads this one, directly or through a
  // chain, comes after it. (A softmax's exp is read by the sum and the division: with the sum
  // computed at the division's row loop, the exp can be computed there too.)
  for (int target = stage + 1; target < static_cast<int>(s.stages().size()); ++target) {
    const schedule::Stage& t = s.stage(target);
    if (t.is_placeholder || t.scope == schedule::kLayoutScope || t.location == ComputeLocation::kInlined) continue;
    for (int i = 0; i < static_cast<int>(t.iters.size()) && t.node_of(i).kind == schedule::IterKind::kSpace; ++i) {
      if (t.node_of(i).extent == 1) continue;
      if (schedule::ComputeAtProblem(s, stage, target, i).empty()) out.push_back(schedule::ComputeAtStep{stage, target, i});
      if (!s.AttachedAt(target, t.iters[i].node).empty()) break;
    }
  }
  return out;
}

}  // namespace tunefarm::tuner
