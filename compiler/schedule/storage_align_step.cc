// The storage_align step: pads the rows of a local or shared stage's buffer (tir/lower.cc gives
// the buffer its padded shape). Only the layout of a scratch buffer changes, never a value.
#include "common/strings.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {

// Largest factor accepted: a row padded to a multiple of more words than a shared tile has
// banks buys nothing.
constexpr int kMaxStorageAlignFactor = 1024;

absl::Status ApplyStorageAlign(const StorageAlignStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "SA", step.stage, -1); !s.ok()) return s;
  auto error = [&](std::string_view why) { return StepError("SA", step.stage, -1, why); };
  const Stage& stage = state->stage(step.stage);
  if (stage.scope != "shared" && stage.scope != "local")
    return error("only a local or shared stage's buffer can be aligned (the others are the tensors' own layouts)");
  if (stage.location != ComputeLocation::kAt)
    return error("the stage must be computed at a loop of a reader: at the root its buffer is the whole tensor, "
                 "in the tensor's own layout");
  if (step.axis < 0 || step.axis > stage.num_space_axes - 2)
    return error(StrCat("axis ", step.axis, " has no rows in the stage's ", stage.num_space_axes,
                        "-dimensional buffer (the innermost axis is a row itself)"));
  if (step.factor < 1 || step.factor > kMaxStorageAlignFactor)
    return error(StrCat("factor ", step.factor, " is not in [1, ", kMaxStorageAlignFactor, "]"));
  if (step.offset < 0 || step.offset >= step.factor)
    return error(StrCat("offset ", step.offset, " is not in [0, factor ", step.factor, ")"));
  if (stage.storage_align_factor != 0) return error("the stage's buffer is already aligned");
  Stage& out = state->mutable_stage(step.stage);
  out.storage_align_axis = step.axis;
  out.storage_align_factor = step.factor;
  out.storage_align_offset = step.offset;
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
