// The stage table of a TuningProfile (tuning_profile.h): for each stage its total seconds, the
// milliseconds per trial, its share of the wall time and how often it ran, then the trials per
// minute. Printed by `tunefarm tune` at the end of a job and by the tuning-stages bench.
#pragma once

#include <cstdint>
#include <string>

#include "tuner/tuning_profile.h"

namespace tunefarm::tuner {

// `trials`: the trials the profile covers; `wall_s`: the wall time it covers.
std::string FormatStageTable(const TuningProfile& profile, int64_t trials, double wall_s);

}  // namespace tunefarm::tuner
