// Whether a compute_at would apply, without applying it: the checks of the "CA" step, for
// search code that lists the loops a stage may be computed at.
#pragma once

#include <string>

#include "compiler/schedule/state.h"

namespace tunefarm::schedule {

// Why `stage` cannot be computed at `target_stage`'s loop `target_iter` (that loop must be in
// a stage that reads `stage`, directly or through a chain of readers, and every reader must
// run inside it); empty when it can.
std::string ComputeAtProblem(const State& state, int stage, int target_stage, int target_iter);

}  // namespace tunefarm::schedule
