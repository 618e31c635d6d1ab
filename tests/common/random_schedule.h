// Seeded random schedules over the step kinds, for tests that check many schedules against a
// reference. Invalid steps are part of the point: they must be rejected cleanly.
#pragma once

#include <algorithm>
#include <random>

#include "compiler/schedule/state.h"

namespace tunefarm::testing {

struct RandomScheduleStats {
  int applied = 0, rejected = 0;
  int fused_rfactors = 0;  // rfactors of a fusion of reduce iterators
};

// Applies `num_steps` random steps to random compute stages of `state`.
inline RandomScheduleStats ApplyRandomSteps(schedule::State* state, std::mt19937_64* rng, int num_steps) {
  RandomScheduleStats stats;
  const auto& stages = state->dag().stages();
  auto pick = [&](int n) { return static_cast<int>((*rng)() % static_cast<uint64_t>(std::max(n, 1))); };
  static constexpr int64_t kFactors[] = {1, 2, 3, 4, 5, 8, 16};
  for (int step = 0; step < num_steps; ++step) {
    int stage = stages[pick(static_cast<int>(stages.size()))];
    int n = static_cast<int>(state->stage(stage).iters.size());
    absl::Status s;
    // Follow splits name an earlier split step; pick among those (or any step, to be rejected).
    std::vector<int> splits;
    for (size_t i = 0; i < state->steps().size(); ++i)
      if (std::holds_alternative<schedule::SplitStep>(state->steps()[i])) splits.push_back(static_cast<int>(i));
    auto pick_split = [&]() {
      if (splits.empty() || pick(8) == 0) return pick(static_cast<int>(state->steps().size()) + 1);
      return splits[pick(static_cast<int>(splits.size()))];
    };
    switch (pick(14)) {
      case 0: {
        std::vector<std::optional<int64_t>> lengths;
        for (int i = 0, count = 1 + pick(2); i < count; ++i) lengths.push_back(kFactors[pick(7)]);
        s = state->Split(stage, pick(n), lengths);
        break;
      }
      case 1: {
        std::vector<int> order(n);
        for (int i = 0; i < n; ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), *rng);
        s = state->Reorder(stage, order);
        break;
      }
      case 2: {
        int first = pick(n - 1);
        s = state->Fuse(stage, {first, first + 1});
        break;
      }
      case 3: {
        static constexpr schedule::IterAnnotation kAnn[] = {schedule::IterAnnotation::kParallel,
                                                            schedule::IterAnnotation::kVectorize,
                                                            schedule::IterAnnotation::kUnroll};
        s = state->Annotate(stage, pick(n), kAnn[pick(3)]);
        break;
      }
      case 4:
        s = state->PragmaAutoUnroll(stage, 0, 1 << pick(7));
        break;
      case 5:
        s = state->ComputeInline(stage);
        break;
      case 6: {
        // Any later stage: the direct reader, or one reading through inlined stages (others
        // are rejected).
        int num_tensors = state->dag().num_tensors();
        if (stage + 1 >= num_tensors) {
          s = state->ComputeAt(stage, stage, 0);  // invalid on purpose
          break;
        }
        int target = stage + 1 + pick(num_tensors - stage - 1);
        // Half the time: where a reader of this stage is computed (a chain of compute_ats).
        for (int reader : state->dag().consumers(stage))
          if (state->stage(reader).location == schedule::ComputeLocation::kAt && pick(2) == 0)
            target = state->stage(reader).attach_stage;
        s = state->ComputeAt(stage, target, pick(static_cast<int>(state->stage(target).iters.size())));
        break;
      }
      case 7:
        s = state->ComputeRoot(stage);
        break;
      case 8:
        s = state->FollowSplit(stage, pick(n), pick_split(), 1 + pick(2));
        break;
      case 10:
        // Half the time the new cache goes straight into its consumer's loops, so local
        // buffers at every attach depth (register tiles) are common.
        s = state->CacheWrite(stage, pick(4) == 0 ? "global" : "local");
        if (s.ok() && pick(2) == 0) {
          ++stats.applied;
          s = state->ComputeAt(stage, stage + 1, pick(static_cast<int>(state->stage(stage + 1).iters.size())));
        }
        break;
      case 11: {
        int producer = pick(stage + 1);  // any earlier tensor, placeholders included
        s = state->CacheRead(producer, pick(2) == 0 ? "global" : "local", {stage});
        if (s.ok() && pick(2) == 0) {  // the reader moved up by one
          ++stats.applied;
          s = state->ComputeAt(producer + 1, stage + 1, pick(static_cast<int>(state->stage(stage + 1).iters.size())));
        }
        break;
      }
      case 12: {
        // Half the time the last two iterators (two reduce axes, if the stage has them) are
        // fused first, and the factor axis goes anywhere among the space axes.
        bool fused = false;
        if (n >= 2 && pick(2) == 0 && state->Fuse(stage, {n - 2, n - 1}).ok()) {
          ++stats.applied;
          fused = true;
          --n;
        }
        int iter = fused && pick(2) == 0 ? n - 1 : pick(n);
        s = state->Rfactor(stage, iter, pick(state->stage(stage).num_space_axes + 1));
        stats.fused_rfactors += s.ok() && fused && iter == n - 1;
        break;
      }
      case 13: {
        // Pad the rows of a local stage's buffer, mostly those of its second innermost axis (any
        // but the innermost is accepted, the innermost and beyond refused).
        std::vector<int> locals;
        for (int t = 0; t < static_cast<int>(state->stages().size()); ++t)
          if (state->stage(t).scope == "local") locals.push_back(t);
        const int target = locals.empty() ? stage : locals[pick(static_cast<int>(locals.size()))];
        const int axes = state->stage(target).num_space_axes;
        static constexpr int kPadFactors[] = {1, 2, 4, 32};
        const int factor = kPadFactors[pick(4)];
        s = state->StorageAlign(target, pick(4) == 0 ? pick(axes + 1) : axes - 2, factor, pick(factor));
        break;
      }
      default:
        s = state->FollowFusedSplit(stage, pick(n), {pick_split(), pick_split()}, pick(2),
                                    pick(2) == 0);
        break;
    }
    if (s.ok()) {
      ++stats.applied;
    } else {
      ++stats.rejected;
    }
  }
  return stats;
}

}  // namespace tunefarm::testing
