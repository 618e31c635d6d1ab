// compute_at / compute_inline / compute_root: where a stage's loop nest is emitted.
#include <algorithm>

#include "common/strings.h"
#include "compiler/schedule/compute_at_check.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {
namespace {


// Stages that are attached at `stage` (they would lose their loop).
bool HasAttachedStages(const State& state, int stage) {
  for (const Stage& s : state.stages())
    if (s.location == ComputeLocation::kAt && s.attach_stage == stage) return true;
  return false;
}

// True when `to` reads `from`, directly or through other stages.
bool Reaches(const te::ComputeDag& dag, int from, int to) {
  for (int c : dag.consumers(from))
    if (c == to || Reaches(dag, c, to)) return true;
  return false;
}

}  // namespace

int IterPosition(const State& state, int stage, int node) {
  const auto& iters = state.stage(stage).iters;
  for (size_t i = 0; i < iters.size(); ++i)
    if (iters[i].node == node) return static_cast<int>(i);
  return -1;
}

std::string AttachmentProblem(const State& state, int stage, int target, int node) {
  const Stage& t = state.stage(target);
  if (t.location == ComputeLocation::kInlined) return "the target stage is inlined";
  const int pos = IterPosition(state, target, node);
  if (pos < 0) return "the target iterator is no longer a loop of the target stage";
  const std::string loop = StrCat("stage ", target, "'s loop ", t.nodes[node].name);
  std::vector<int> readers = state.EffectiveConsumers(stage);
  if (readers.empty()) return "the stage has no readers to be computed for";
  for (int r : readers) {
    if (r == target) continue;
    const Stage& reader = state.stage(r);
    if (reader.location != ComputeLocation::kAt || reader.attach_stage != target)
      return StrCat("its reader stage ", r, " does not run inside ", loop,
                    " (compute that reader at the target first, or compute this stage at the reader)");
    if (IterPosition(state, target, reader.attach_node) < pos)
      return StrCat("its reader stage ", r, " is computed outside ", loop);
  }
  return "";
}

std::string ComputeAtProblem(const State& state, int stage_id, int target_stage, int target_iter) {
  if (target_iter < 0) return "negative target iterator";
  const Stage& stage = state.stage(stage_id);
  const Stage& target = state.stage(target_stage);
  const te::ComputeDag& dag = state.dag();
  if (dag.analysis(stage.tensor_id).is_output) return "an output stage cannot be computed inside another stage";
  if (stage.location == ComputeLocation::kInlined) return "the stage is inlined";
  if (target_stage == stage_id) return "a stage cannot be computed inside itself";
  // Any loop of a stage that reads this one, directly or through a chain of readers, as long
  // as every reader runs inside that loop.
  if (!Reaches(dag, stage_id, target_stage))
    return StrCat("stage ", target_stage, " does not read this stage, directly or through other stages");
  return AttachmentProblem(state, stage_id, target_stage, target.iters[target_iter].node);
}

absl::Status ApplyComputeAt(const ComputeAtStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "CA", step.stage, -1); !s.ok()) return s;
  if (auto s = CheckStageIter(*state, "CA", step.target_stage, step.target_iter); !s.ok()) return s;
  std::string problem = ComputeAtProblem(*state, step.stage, step.target_stage, step.target_iter);
  if (!problem.empty()) return StepError("CA", step.stage, -1, problem);
  const Stage& target = state->stage(step.target_stage);
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
