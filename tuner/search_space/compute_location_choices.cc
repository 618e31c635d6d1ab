#include "tuner/search_space/compute_location_choices.h"

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
  return !st.is_placeholder && st.location != ComputeLocation::kInlined && !a.is_output &&
         !a.needs_multi_level_tiling && s.IsUntouched(stage) && !HostsStages(s, stage);
}

std::vector<Step> ComputeLocationChoices(const State& s, int stage) {
  std::vector<Step> out;
  if (!s.dag().analysis(s.stage(stage).tensor_id).has_reduction) out.push_back(schedule::ComputeInlineStep{stage});
  out.push_back(schedule::ComputeRootStep{stage});
  std::vector<int> readers = s.EffectiveConsumers(stage);
  if (readers.size() != 1) return out;
  const schedule::Stage& reader = s.stage(readers[0]);
  for (int i = 0; i < static_cast<int>(reader.iters.size()) && reader.node_of(i).kind == schedule::IterKind::kSpace;
       ++i) {
    if (reader.node_of(i).extent == 1) continue;
    out.push_back(schedule::ComputeAtStep{stage, readers[0], i});
    if (!s.AttachedAt(readers[0], reader.iters[i].node).empty()) break;
  }
  return out;
}

}  // namespace tunefarm::tuner
