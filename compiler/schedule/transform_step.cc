#include "compiler/schedule/transform_step.h"

#include "common/strings.h"
#include "compiler/schedule/state.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {

std::string_view StepTag(const Step& step) {
  static constexpr std::string_view kTags[] = {"SP", "RE", "FU", "AN", "PR", "CA", "CI", "CR", "FSP", "FFSP", "CHW", "CHR", "RF", "LR", "SA"};
  return kTags[step.index()];
}

absl::Status ApplyStep(const Step& step, State* state) {
  switch (step.index()) {
    case 0: return ApplySplit(std::get<SplitStep>(step), state);
    case 1: return ApplyReorder(std::get<ReorderStep>(step), state);
    case 2: return ApplyFuse(std::get<FuseStep>(step), state);
    case 3: return ApplyAnnotation(std::get<AnnotationStep>(step), state);
    case 4: return ApplyPragma(std::get<PragmaStep>(step), state);
    case 5: return ApplyComputeAt(std::get<ComputeAtStep>(step), state);
    case 6: return ApplyComputeInline(std::get<ComputeInlineStep>(step), state);
    case 7: return ApplyComputeRoot(std::get<ComputeRootStep>(step), state);
    case 8: return ApplyFollowSplit(std::get<FollowSplitStep>(step), state);
    case 9: return ApplyFollowFusedSplit(std::get<FollowFusedSplitStep>(step), state);
    case 10: return ApplyCacheWrite(std::get<CacheWriteStep>(step), state);
    case 11: return ApplyCacheRead(std::get<CacheReadStep>(step), state);
    case 12: return ApplyRfactor(std::get<RfactorStep>(step), state);
    case 13: return ApplyLayoutRewrite(std::get<LayoutRewriteStep>(step), state);
    case 14: return ApplyStorageAlign(std::get<StorageAlignStep>(step), state);
  }
  return absl::InternalError("unknown step kind");
}

absl::Status StepError(std::string_view tag, int stage, int iter, std::string_view reason) {
  std::string where = iter >= 0 ? StrCat(" iter ", iter) : std::string();
  return absl::InvalidArgumentError(StrCat(tag, " stage ", stage, where, ": ", reason));
}

absl::Status CheckStageIter(const State& state, std::string_view tag, int stage, int iter) {
  if (stage < 0 || stage >= static_cast<int>(state.stages().size()))
    return StepError(tag, stage, -1, StrCat("no such stage (the DAG has ", state.stages().size(), ")"));
  const Stage& s = state.stage(stage);
  if (s.is_placeholder) return StepError(tag, stage, -1, "a placeholder has no loops to schedule");
  if (iter >= 0 && iter >= static_cast<int>(s.iters.size()))
    return StepError(tag, stage, iter, StrCat("no such iterator (the stage has ", s.iters.size(), ")"));
  if (iter < -1) return StepError(tag, stage, iter, "negative iterator index");
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
