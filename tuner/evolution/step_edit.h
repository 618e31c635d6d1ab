// Editing a program's step list, the one source of truth of a schedule: the mutation rules
// change a step (or a few) and replay the list on a fresh State. Three things make that more
// than a loop over State::Apply:
//  - a split records the extent of the iterator it splits, checked on replay. When an earlier
//    edit changes that extent (a split of a loop an edited split made, an rfactor axis), the
//    replay takes the extent the iterator has now; it refuses the split when its lengths would
//    then leave a tail (random annotation never draws one), so an edit cannot slip in a guarded
//    loop. Follow splits (FSP/FFSP) read their source split's lengths on replay, so they follow
//    an edited split with nothing to re-derive.
//  - follow splits name earlier steps by index: inserting or erasing a step renumbers them.
//  - steps name iterators by position: fusing more or fewer loops shifts the later positions.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"

namespace tunefarm::tuner {

// What the replay saw before each step: the number of stages (a cache or rfactor step inserts
// one, so (stage, stage count) tells stages apart across insertions), and for a split the kind
// of the iterator it splits.
struct ReplayTrace {
  std::vector<int> stage_count;
  std::vector<schedule::IterKind> split_kind;  // kSpace for steps that are no split
};

// Replays `steps` on a fresh State of `dag`, re-deriving recorded split extents as above. A
// refused step is InvalidArgument, naming the step.
absl::StatusOr<schedule::State> ReplaySteps(std::shared_ptr<const te::ComputeDag> dag,
                                            const std::vector<schedule::Step>& steps, ReplayTrace* trace = nullptr);

// The stage a step schedules (its first field; for compute_at the stage placed, not the target).
int StepStage(const schedule::Step& step);

// Inserts / erases step `pos`, renumbering the follow splits' source steps after it. Erasing a
// step that a follow split reads fails.
void InsertStep(std::vector<schedule::Step>* steps, size_t pos, schedule::Step step);
absl::Status EraseStep(std::vector<schedule::Step>* steps, size_t pos);

// Adds `delta` to every stage index of at least `first` that steps [from, end) name: the
// renumbering when a stage is inserted (delta 1) or removed (delta -1) at index `first` just
// before step `from`.
void ShiftStages(std::vector<schedule::Step>* steps, size_t from, int first, int delta);

// Where random annotation's parallel, vectorize and unroll steps begin (sketches have none of
// them). Its location and layout-rewrite steps come just before.
size_t AnnotationEnd(const std::vector<schedule::Step>& steps);

// A stage's parallel loop as random annotation makes it: an optional fuse of its loops
// [0, fused) at `fuse_step` (-1: none, one loop), then an annotation of loop 0 as parallel at
// `annotate_step`.
struct ParallelGroup {
  int stage = -1;
  int fuse_step = -1;
  int annotate_step = -1;
  int fused = 1;
};

// Every parallel group of the step list, in step order.
std::vector<ParallelGroup> FindParallelGroups(const std::vector<schedule::Step>& steps);

// Rewrites `group` to fuse `fused` loops (0: no parallel loop at all), shifting the loop
// positions that later steps give for the stage (its own steps, and compute_at targets in it).
// Fails when a later step names a loop the new fusion swallows, or when a later step reorders
// the stage or inserts a stage (positions could not be followed through it).
absl::Status SetParallelFused(std::vector<schedule::Step>* steps, const ParallelGroup& group, int fused);

}  // namespace tunefarm::tuner
