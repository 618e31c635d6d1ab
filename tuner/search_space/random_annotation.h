// Random annotation (Ansor's initial-population rules): a sketch becomes a complete program.
// Each call draws, in this order:
//  1. tile sizes      the sketch's steps are replayed on a fresh State with every unfilled split
//                     length drawn (split_factorization.h, innermost at most 64), and the length
//                     of a split that an rfactor factors drawn again. The innermost space lengths
//                     of one stage's tiles together stay within RegisterTileElements() (drawn
//                     axis by axis, in a random order, each within what the others left), so
//                     the accumulators of a register tile fit the register file.
//  2. compute         each stage that no rule tiled and that is no output (a stage with costly
//     locations       math, a plain reduction, an rfactor stage) is inlined (when it can be),
//                     kept at the root, or computed at a loop of a stage that reads it,
//                     directly or through a chain, where all its readers run (outside that
//                     stage's first reduce loop, not a loop of one iteration, and none inside a
//                     loop that hosts other stages): uniformly among those choices.
//  3. layout rewrite  each constant tensor (weights) read only by one tiled reduction, at one
//                     loop axis per dimension, is stored in that stage's tile order (the LR
//                     step; the compiler transforms the weights at build time) with
//                     probability 1/2. Drawn before the parallel loops fuse weight axes with
//                     the others.
//  4. parallel        each root stage's outer space loops are fused until they have at least
//                     `cores` iterations and run in parallel. Fusing stops early at a reduce
//                     loop, at a loop other stages are computed at (fused last, they move to
//                     the fused loop) and before the
//                     innermost loop, which stays for vectorization. When the loops down to
//                     such an attach loop have one iteration, the stages computed there are
//                     parallelized the same way instead. Nothing with one core.
//  5. vectorize       the innermost loop of every stage, when it is a space loop of 2 to
//                     MaxVectorExtent() iterations with no stage computed inside it. (Ansor
//                     vectorizes up to 16 elements and fuses inner loops to get there; fused
//                     loops index lanes by div/mod, which codegen can only gather, so here the
//                     innermost loop is vectorized alone, up to four vectors.)
//  6. auto-unroll     every stage with a reduce loop gets auto_unroll_max_step 0, 16, 64 or 512.
// A step the State refuses is an error (the caller counts it and draws again). For a GPU target
// it is gpu_annotation.h's annotation instead.
#pragma once

#include <functional>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"
#include "tuner/search_space/search_target.h"

namespace tunefarm::tuner {

absl::StatusOr<schedule::State> AnnotateRandomly(const schedule::State& sketch, const SearchTarget& target,
                                                 std::mt19937_64& rng);

// The layout rewrites `program` could take now (phase 3's ground): (constant placeholder, its
// one reader) for each constant of at least 2 dimensions read only by a tiled reduction whose
// loops walk it one axis per dimension, and not rewritten yet.
std::vector<std::pair<int, int>> RewritableConstants(const schedule::State& program);

// The auto_unroll_max_step values annotation draws from.
inline constexpr int kAutoUnrollChoices[] = {0, 16, 64, 512};

// Phase 6 (the GPU annotation's last phase too): every stage with a reduce loop gets one of
// kAutoUnrollChoices.
absl::Status PickAutoUnroll(schedule::State* s, std::mt19937_64& rng);
// The same with each stage's value from `max_step_of_next` (the GPU default program's fixed one).
absl::Status SetAutoUnroll(schedule::State* s, const std::function<int()>& max_step_of_next);

// `s` with the phase that refused a step named first ("bindings: ..."), as both annotators report.
absl::Status PhaseError(std::string_view phase, const absl::Status& s);

}  // namespace tunefarm::tuner
