// Where a stage no sketch rule placed may be computed: random annotation draws one of these
// choices, and the compute-location mutation moves a stage to another of them.
#pragma once

#include <vector>

#include "compiler/schedule/state.h"
#include "compiler/schedule/transform_step.h"

namespace tunefarm::tuner {

// Some stage is computed at one of `stage`'s loops.
bool HostsStages(const schedule::State& s, int stage);

// A compute stage left untiled, not an output, not reuse-heavy, untouched, hosting no other
// stage and not a shared tile (the GPU sketch places those, at the step loop of the tile that
// reads them): annotation chooses its place.
bool Relocatable(const schedule::State& s, int stage);

// Its choices: inline (when it has no reduction), root, and each loop outside the first reduce
// loop of a stage that reads it (directly or through a chain of readers) where every reader
// runs inside that loop, except loops of one iteration (the same place as the loop around
// them) and loops inside one that already hosts other stages.
std::vector<schedule::Step> ComputeLocationChoices(const schedule::State& s, int stage);

}  // namespace tunefarm::tuner
