// Random annotation of a sketch: replays a schedule's step list on a fresh State, re-drawing the
// choices the default rules made with fixed values. Each choice changes with probability
// `probability`:
//   split      each inner length: a divisor of the split extent, or half / double the rule's
//              length (a non-divisor gives a guarded tail, which is legal but usually slower)
//   annotate   parallel / vectorize / unroll: dropped (the loop stays serial)
//   compute_at the consumer loop the producer is computed in: any loop of the consumer
//   + pragma   with the same probability, an auto_unroll_max_step (16, 64 or 512) on the
//              outermost loop of one root stage
// A draw the State refuses (an extent that no longer matches, a loop that cannot host the
// producer) fails the replay; the caller draws again. Every random choice comes from `rng`.
#pragma once

#include <memory>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"

namespace tunefarm::tuner {

struct MutationOptions {
  double probability = 0.5;
  int64_t max_split_length = 64;  // longer inner loops only when the rule chose one
};

absl::StatusOr<schedule::State> ReplayWithMutations(std::shared_ptr<const te::ComputeDag> dag,
                                                    const std::vector<schedule::Step>& steps,
                                                    std::mt19937_64& rng,
                                                    const MutationOptions& options = {});

// The lengths a split of `extent` may draw instead of `current`, ascending, without repeats.
std::vector<int64_t> SplitLengthChoices(int64_t extent, int64_t current, int64_t max_length);

}  // namespace tunefarm::tuner
