// Shared validation for the step implementations (private to compiler/schedule).
#pragma once

#include "compiler/schedule/state.h"

namespace tunefarm::schedule {

// OK when `stage` is a compute stage of `state` (and `iter`, unless negative, one of its iterators).
absl::Status CheckStageIter(const State& state, std::string_view tag, int stage, int iter);

}  // namespace tunefarm::schedule
