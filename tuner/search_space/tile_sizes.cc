#include "tuner/search_space/tile_sizes.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/strings.h"
#include "tuner/search_space/split_factorization.h"

namespace tunefarm::tuner {
namespace {

using schedule::State;
using schedule::Step;

bool IsUnfilled(const schedule::SplitStep& split) {
  return std::any_of(split.lengths.begin(), split.lengths.end(), [](const auto& l) { return !l; });
}

// The iterator node a split step splits in `state`, or null when there is none.
const schedule::IterNode* SplitNode(const State& state, const schedule::SplitStep& split) {
  if (split.stage < 0 || split.stage >= static_cast<int>(state.stages().size())) return nullptr;
  const schedule::Stage& st = state.stage(split.stage);
  if (split.iter < 0 || split.iter >= static_cast<int>(st.iters.size())) return nullptr;
  return &st.node_of(split.iter);
}

}  // namespace

absl::StatusOr<std::vector<TunableSplit>> FindTunableSplits(const State& sketch) {
  State scratch(sketch.original_dag());
  const std::vector<Step>& steps = sketch.steps();
  std::vector<TunableSplit> out;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (const auto* split = std::get_if<schedule::SplitStep>(&steps[i])) {
      const auto* rfactor = i + 1 < steps.size() ? std::get_if<schedule::RfactorStep>(&steps[i + 1]) : nullptr;
      if (IsUnfilled(*split) || (rfactor && rfactor->stage == split->stage)) {
        const schedule::IterNode* node = SplitNode(scratch, *split);
        if (!node) return absl::InvalidArgumentError(StrCat("the sketch's step ", i, " splits a missing iterator"));
        out.push_back({i, {split->stage, static_cast<int>(scratch.stages().size())}, node->kind, node->extent,
                       static_cast<int>(split->lengths.size())});
      }
    }
    if (auto s = scratch.Apply(steps[i]); !s.ok())
      return absl::InvalidArgumentError(StrCat("the sketch does not replay at step ", i, ": ", std::string(s.message())));
  }
  return out;
}

absl::StatusOr<State> FillTileSizes(const State& sketch, const DrawLengthsFn& draw, std::mt19937_64& rng,
                                    const RefineLengthsFn& refine) {
  auto splits = FindTunableSplits(sketch);
  if (!splits.ok()) return splits.status();
  std::map<size_t, std::vector<int64_t>> drawn = draw(*splits);
  std::map<size_t, int> parts_of;
  for (const TunableSplit& s : *splits) parts_of[s.step] = s.parts;
  State out(sketch.original_dag());
  const std::vector<Step>& steps = sketch.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    Step step = steps[i];
    if (auto* split = std::get_if<schedule::SplitStep>(&step)) {
      const schedule::IterNode* node = SplitNode(out, *split);
      if (!node) return absl::InvalidArgumentError(StrCat("step ", i, " splits a missing iterator"));
      split->extent = node->extent;  // earlier draws change it
      if (parts_of.count(i)) {
        auto it = drawn.find(i);
        std::vector<int64_t> lengths =
            it != drawn.end() ? it->second : SampleFactorization(split->extent, parts_of[i], kMaxInnermostSplitLength, rng);
        if (refine)
          if (std::optional<std::vector<int64_t>> late = refine(out, i, *split)) lengths = std::move(*late);
        split->lengths.assign(lengths.begin(), lengths.end());
      }
    }
    if (auto s = out.Apply(step); !s.ok()) return s;
  }
  return out;
}

}  // namespace tunefarm::tuner
