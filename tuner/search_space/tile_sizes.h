// Random annotation's first phase, shared by the CPU and GPU annotators: find the sketch's
// splits whose lengths are drawn, then replay the sketch on a fresh State with drawn lengths.
// What the lengths may be (a register budget on a CPU, threads per block on a GPU) is the
// caller's draw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"

namespace tunefarm::tuner {

// A split of the sketch whose lengths annotation draws.
struct TunableSplit {
  size_t step = 0;
  // The stage as (index, stage count) when split: distinct stages never share it, although
  // inserting a cache stage shifts indices.
  std::pair<int, int> stage;
  schedule::IterKind kind = schedule::IterKind::kSpace;
  int64_t extent = schedule::kUnknownExtent;
  int parts = 1;  // inner lengths
};

// Every unfilled split of `sketch`, and one that an rfactor right after it factors (its length
// had to be known to build the new stage).
absl::StatusOr<std::vector<TunableSplit>> FindTunableSplits(const schedule::State& sketch);

// Lengths by step index for the splits of known extent; a split left out (or of an extent known
// only during the replay) is drawn by SampleFactorization with the innermost cap.
using DrawLengthsFn = std::function<std::map<size_t, std::vector<int64_t>>(const std::vector<TunableSplit>&)>;

// Lengths that depend on what the replay has built so far (a fetch's lanes on its tile's
// shape): called for each tunable split just before it is applied, with the state before it;
// a value replaces the drawn lengths.
using RefineLengthsFn = std::function<std::optional<std::vector<int64_t>>(
    const schedule::State& so_far, size_t step, const schedule::SplitStep& split)>;

// The sketch replayed with every tunable split's lengths drawn.
absl::StatusOr<schedule::State> FillTileSizes(const schedule::State& sketch, const DrawLengthsFn& draw,
                                              std::mt19937_64& rng, const RefineLengthsFn& refine = nullptr);

}  // namespace tunefarm::tuner
