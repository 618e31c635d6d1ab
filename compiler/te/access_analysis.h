// Access analysis of each stage: what it reads and how, and the facts rules key on.
#pragma once

#include <vector>

#include "compiler/te/compute_dag.h"

namespace tunefarm::te {

// One StageAnalysis per tensor id (placeholders get an empty one).
std::vector<StageAnalysis> AnalyzeStages(const ComputeDag& dag);

}  // namespace tunefarm::te
