// Sketch generation (Ansor's): a compute DAG's loop structures with the tile sizes left open.
// An ordered table of rules is applied to each stage, from the last stage to the first; a rule
// whose condition holds returns one or more new states, each with the next stage to visit, so
// a rule with several choices branches the search. What comes out at the first stage is a
// sketch; random annotation (random_annotation.h) fills it into programs.
//
// The table (tried in order for each stage; "skip rest" stops at the rule that applied):
//   1. handled          placeholders, and stages an earlier rule placed or tiled: left as they
//                       are (skip rest)
//   2. inline           strictly inlinable stages (cheap elementwise, padding) are inlined
//                       (skip rest)
//   3. rfactor          a reduction with long reduce loops and little space to parallelize
//                       (reuse-heavy: space <= reduce and space <= 16 x cores; else: reduce >
//                       cores): its reduce loops are fused and split in two, and either half is
//                       factored out into a new stage as its last space axis, the inner half
//                       moved innermost (two branches; annotation draws the split length again).
//                       Both stages are left untiled.
//   4. cache-write      a reuse-heavy stage with no fusible consumer: a "local" cache stage
//                       computes it and the stage becomes the copy-out, which rule 5 then fuses
//   5. tile+fuse        a reuse-heavy stage whose only reader is elementwise on it: tiled
//                       SSRSRS and computed at the reader's S0 or S1 tile loop (two branches;
//                       skip rest for a cache stage, whose copy-out must be fused)
//   6. tile             a reuse-heavy stage: tiled SSRSRS at the root (skip rest)
//   7. keep             anything else stays as it is
// "Reuse-heavy" is te::StageAnalysis::needs_multi_level_tiling (some read lacks a space axis).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"
#include "tuner/search_space/search_target.h"

namespace tunefarm::tuner {

enum class RuleCondition { kSkip, kApply, kApplyAndSkipRest };

struct SketchBranch {
  schedule::State state;
  int next_stage;  // the stage to visit next (below the current one); -1 when done
};

struct SketchRule {
  std::string_view name;
  RuleCondition (*condition)(const schedule::State& state, int stage, const SearchTarget& target);
  absl::StatusOr<std::vector<SketchBranch>> (*apply)(const schedule::State& state, int stage,
                                                     const SearchTarget& target);
};

// The rules above, in order.
const std::vector<SketchRule>& SketchRules();

// Parts both tables (this one and gpu_sketch_rules.h) use.
// A compute stage at the root with its initial loops: no rule has handled it yet.
bool Fresh(const schedule::State& s, int stage);
// Fresh and reuse-heavy (te::StageAnalysis::needs_multi_level_tiling).
bool NeedsTiling(const schedule::State& s, int stage);
bool HasSplittableSpaceAxis(const schedule::State& s, int stage);
// The stage's only reader when that reader is an untouched elementwise stage at the root that
// reads it point by point, through inlined stages (so the two can share tiles); -1 otherwise.
int FusibleConsumer(const schedule::State& s, int stage);
// Rule 1 ("handled": skip rest unless Fresh, going on with the stage below), rule 2's condition
// (Fresh and strictly inlinable) and rule 7's ("keep": always).
RuleCondition HandledCondition(const schedule::State& s, int stage, const SearchTarget& target);
absl::StatusOr<std::vector<SketchBranch>> Next(const schedule::State& s, int stage, const SearchTarget& target);
RuleCondition InlineCondition(const schedule::State& s, int stage, const SearchTarget& target);
RuleCondition KeepCondition(const schedule::State& s, int stage, const SearchTarget& target);

// Every sketch of `dag` (by GpuSketchRules() for a GPU target), in a fixed order (at least one: the rules always leave a state). A
// rule whose steps the State refuses contributes no branch; `notes`, if given, receives a line
// for each such refusal (a rule bug, which tests check for).
std::vector<schedule::State> GenerateSketches(std::shared_ptr<const te::ComputeDag> dag, const SearchTarget& target,
                                              std::vector<std::string>* notes = nullptr);

}  // namespace tunefarm::tuner
