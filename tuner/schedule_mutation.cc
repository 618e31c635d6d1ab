#include "tuner/schedule_mutation.h"

#include <algorithm>
#include <set>

#include "common/strings.h"

namespace tunefarm::tuner {
namespace {

using schedule::State;
using schedule::Step;

bool Chance(std::mt19937_64& rng, double p) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53 < p;
}

template <typename T>
const T& Pick(std::mt19937_64& rng, const std::vector<T>& items) {
  return items[rng() % items.size()];
}

// A removed annotation step is simply left out; that shifts the index of every later step, so
// it is only done when no step refers to earlier ones by index.
bool RefersToSteps(const std::vector<Step>& steps) {
  for (const Step& s : steps) {
    if (std::holds_alternative<schedule::FollowSplitStep>(s) ||
        std::holds_alternative<schedule::FollowFusedSplitStep>(s))
      return true;
  }
  return false;
}

absl::Status MutateSplit(schedule::SplitStep split, const State& state, std::mt19937_64& rng,
                         const MutationOptions& options, State* out) {
  const schedule::Stage& stage = state.stage(split.stage);
  if (split.iter < 0 || split.iter >= static_cast<int>(stage.iters.size()))
    return absl::InvalidArgumentError("split of a missing iterator");
  split.extent = stage.node_of(split.iter).extent;  // what the split sees now
  for (std::optional<int64_t>& length : split.lengths) {
    if (!length || !Chance(rng, options.probability)) continue;
    std::vector<int64_t> choices = SplitLengthChoices(split.extent, *length, options.max_split_length);
    if (!choices.empty()) length = Pick(rng, choices);
  }
  return out->Apply(split);
}

absl::Status MutateComputeAt(schedule::ComputeAtStep at, std::mt19937_64& rng,
                             const MutationOptions& options, State* out) {
  if (Chance(rng, options.probability) && at.target_stage >= 0 &&
      at.target_stage < static_cast<int>(out->stages().size())) {
    int loops = static_cast<int>(out->stage(at.target_stage).iters.size());
    if (loops > 0) at.target_iter = static_cast<int>(rng() % loops);
  }
  return out->Apply(at);
}

// One root stage with loops gets an auto-unroll pragma on its outermost loop.
absl::Status AddUnrollPragma(std::mt19937_64& rng, State* out) {
  std::vector<int> stages;
  for (int i = 0; i < static_cast<int>(out->stages().size()); ++i) {
    const schedule::Stage& st = out->stage(i);
    if (!st.is_placeholder && st.location == schedule::ComputeLocation::kRoot && !st.iters.empty())
      stages.push_back(i);
  }
  if (stages.empty()) return absl::OkStatus();
  static const std::vector<int> kMaxSteps = {16, 64, 512};
  schedule::PragmaStep pragma;
  pragma.stage = Pick(rng, stages);
  pragma.iter = 0;
  pragma.auto_unroll_max_step = Pick(rng, kMaxSteps);
  return out->Apply(pragma);
}

}  // namespace

std::vector<int64_t> SplitLengthChoices(int64_t extent, int64_t current, int64_t max_length) {
  std::set<int64_t> choices;
  if (extent <= 0) return {};
  const int64_t limit = std::max(max_length, current);
  for (int64_t d = 1; d * d <= extent; ++d) {
    if (extent % d != 0) continue;
    if (d <= limit) choices.insert(d);
    if (extent / d <= limit) choices.insert(extent / d);
  }
  for (int64_t near : {current / 2, current * 2})
    if (near >= 1 && near <= std::min(extent, limit)) choices.insert(near);
  return std::vector<int64_t>(choices.begin(), choices.end());
}

absl::StatusOr<State> ReplayWithMutations(std::shared_ptr<const te::ComputeDag> dag,
                                          const std::vector<Step>& steps, std::mt19937_64& rng,
                                          const MutationOptions& options) {
  State state(std::move(dag));
  const bool may_drop = !RefersToSteps(steps);
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    absl::Status applied;
    if (const auto* split = std::get_if<schedule::SplitStep>(&step)) {
      applied = MutateSplit(*split, state, rng, options, &state);
    } else if (const auto* at = std::get_if<schedule::ComputeAtStep>(&step)) {
      applied = MutateComputeAt(*at, rng, options, &state);
    } else if (std::holds_alternative<schedule::AnnotationStep>(step) && may_drop &&
               Chance(rng, options.probability)) {
      continue;  // this loop stays serial
    } else {
      applied = state.Apply(step);
    }
    if (!applied.ok()) {
      return absl::Status(applied.code(), StrCat("step ", i, " (", std::string(schedule::StepTag(step)),
                                                 "): ", std::string(applied.message())));
    }
  }
  if (Chance(rng, options.probability)) {
    if (absl::Status st = AddUnrollPragma(rng, &state); !st.ok()) return st;
  }
  return state;
}

}  // namespace tunefarm::tuner
