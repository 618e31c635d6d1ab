// Shared validation for the step implementations (private to compiler/schedule).
#pragma once

#include "compiler/schedule/state.h"

namespace tunefarm::schedule {

// OK when `stage` is a compute stage of `state` (and `iter`, unless negative, one of its iterators).
absl::Status CheckStageIter(const State& state, std::string_view tag, int stage, int iter);

// Why stage `stage`, computed at `target`'s iterator node `node`, could not be lowered there;
// empty when it can. Every reader of the stage (looking through inlined ones) must run inside
// that loop: the target itself, or a stage computed at the target at that loop or one nested in
// it. (Region inference goes through such readers; a reader computed elsewhere, or deeper in a
// chain of compute_ats, is refused.)
std::string AttachmentProblem(const State& state, int stage, int target, int node);

// The position of iterator node `node` in stage `stage`'s loop order, or -1.
int IterPosition(const State& state, int stage, int node);

}  // namespace tunefarm::schedule
