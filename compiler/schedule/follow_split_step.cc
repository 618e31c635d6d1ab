// follow_split / follow_fused_split: splits whose lengths come from earlier split steps, so
// that a producer's tiles match its consumer's when the tuner changes the consumer's split.
#include "common/strings.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {
namespace {

// The split step at index `id` of the state's history, or an error for `tag`.
absl::StatusOr<const SplitStep*> SourceSplit(const State& state, std::string_view tag, int stage, int iter, int id) {
  if (id < 0 || id >= static_cast<int>(state.steps().size()))
    return StepError(tag, stage, iter, StrCat("source step ", id, " does not exist"));
  const auto* split = std::get_if<SplitStep>(&state.steps()[id]);
  if (!split) return StepError(tag, stage, iter, StrCat("source step ", id, " is not a split"));
  return split;
}

absl::Status SplitWith(State* state, std::string_view tag, int stage, int iter,
                       std::vector<std::optional<int64_t>> lengths) {
  if (auto s = CheckStageIter(*state, tag, stage, iter); !s.ok()) return s;
  if (iter < 0) return StepError(tag, stage, iter, "negative iterator index");
  int64_t extent = state->stage(stage).node_of(iter).extent;
  absl::Status s = ApplySplit(SplitStep{stage, iter, extent, std::move(lengths)}, state);
  if (s.ok()) return s;
  // Report the follower's tag, not the split it turned into.
  return StepError(tag, stage, iter, std::string(s.message()).substr(s.message().find(": ") + 2));
}

}  // namespace

absl::Status ApplyFollowSplit(const FollowSplitStep& step, State* state) {
  auto src = SourceSplit(*state, "FSP", step.stage, step.iter, step.src_step);
  if (!src.ok()) return src.status();
  const auto& from = (*src)->lengths;
  if (step.n_split < 1 || step.n_split > static_cast<int>(from.size()))
    return StepError("FSP", step.stage, step.iter,
                     StrCat("n_split ", step.n_split, " must be in [1, ", from.size(), "]"));
  std::vector<std::optional<int64_t>> lengths(from.begin(), from.begin() + step.n_split - 1);
  std::optional<int64_t> rest = 1;
  for (size_t i = step.n_split - 1; i < from.size(); ++i) rest = (rest && from[i]) ? std::optional(*rest * *from[i]) : std::nullopt;
  lengths.push_back(rest);
  return SplitWith(state, "FSP", step.stage, step.iter, std::move(lengths));
}

absl::Status ApplyFollowFusedSplit(const FollowFusedSplitStep& step, State* state) {
  if (step.src_steps.empty()) return StepError("FFSP", step.stage, step.iter, "no source steps");
  std::optional<int64_t> product = 1;
  for (int id : step.src_steps) {
    auto src = SourceSplit(*state, "FFSP", step.stage, step.iter, id);
    if (!src.ok()) return src.status();
    if (step.level < 0 || step.level >= static_cast<int>((*src)->lengths.size()))
      return StepError("FFSP", step.stage, step.iter, StrCat("source step ", id, " has no level ", step.level));
    const auto& l = (*src)->lengths[step.level];
    product = (product && l) ? std::optional(*product * *l) : std::nullopt;
  }
  if (step.factor_or_nparts) return SplitWith(state, "FFSP", step.stage, step.iter, {product});
  if (step.iter < 0 || !product) return SplitWith(state, "FFSP", step.stage, step.iter, {std::nullopt});
  if (auto s = CheckStageIter(*state, "FFSP", step.stage, step.iter); !s.ok()) return s;
  // nparts: the outer loop gets `product` iterations, the inner one the rest.
  int64_t extent = state->stage(step.stage).node_of(step.iter).extent;
  if (extent == kUnknownExtent) return SplitWith(state, "FFSP", step.stage, step.iter, {std::nullopt});
  return SplitWith(state, "FFSP", step.stage, step.iter, {(extent + *product - 1) / *product});
}

}  // namespace tunefarm::schedule
