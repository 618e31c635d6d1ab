// compute_at / compute_inline / compute_root: where a stage's loop nest is emitted.
#include <algorithm>

#include "compiler/common/strings.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {
namespace {


// Stages that are attached at `stage` (they would lose their loop).
bool HasAttachedStages(const State& state, int stage) {
  for (const Stage& s : state.stages())
    if (s.location == ComputeLocation::kAt && s.attach_stage == stage) return true;
  return false;
}

}  // namespace

absl::Status ApplyComputeAt(const ComputeAtStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "CA", step.stage, -1); !s.ok()) return s;
  if (auto s = CheckStageIter(*state, "CA", step.target_stage, step.target_iter); !s.ok()) return s;
  auto error = [&](std::string_view why) { return StepError("CA", step.stage, -1, why); };
  if (step.target_iter < 0) return error("negative target iterator");
  const Stage& stage = state->stage(step.stage);
  const Stage& target = state->stage(step.target_stage);
  const te::ComputeDag& dag = state->dag();
  if (dag.analysis(stage.tensor_id).is_output) return error("an output stage cannot be computed inside another stage");
  // Every reader must run inside the target's loop; one reader keeps the rule simple.
  std::vector<int> consumers = state->EffectiveConsumers(step.stage);
  if (std::find(consumers.begin(), consumers.end(), step.target_stage) == consumers.end())
    return error(StrCat("stage ", step.target_stage, " does not read this stage"));
  if (consumers.size() != 1) return error("compute_at needs a stage with exactly one consumer");
  if (target.location == ComputeLocation::kInlined) return error("the target stage is inlined");
  if (stage.location == ComputeLocation::kInlined) return error("the stage is inlined");
  Stage& st = state->mutable_stage(step.stage);
  st.location = ComputeLocation::kAt;
  st.attach_stage = step.target_stage;
  st.attach_node = target.iters[step.target_iter].node;
  return absl::OkStatus();
}

absl::Status ApplyComputeInline(const ComputeInlineStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "CI", step.stage, -1); !s.ok()) return s;
  auto error = [&](std::string_view why) { return StepError("CI", step.stage, -1, why); };
  const Stage& stage = state->stage(step.stage);
  const te::StageAnalysis& a = state->dag().analysis(stage.tensor_id);
  if (a.is_output) return error("an output stage cannot be inlined");
  if (a.has_reduction) return error("a reduction cannot be inlined");
  if (HasAttachedStages(*state, step.stage)) return error("stages are computed at this stage's loops");
  Stage& st = state->mutable_stage(step.stage);
  st.location = ComputeLocation::kInlined;
  st.attach_stage = st.attach_node = -1;
  return absl::OkStatus();
}

absl::Status ApplyComputeRoot(const ComputeRootStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "CR", step.stage, -1); !s.ok()) return s;
  const Stage& stage = state->stage(step.stage);
  if (stage.location == ComputeLocation::kInlined)
    return StepError("CR", step.stage, -1, "an inlined stage has no loops to place");
  Stage& st = state->mutable_stage(step.stage);
  st.location = ComputeLocation::kRoot;
  st.attach_stage = st.attach_node = -1;
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
