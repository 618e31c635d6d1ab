// Access analysis of each stage: what it reads and how, and the facts rules key on.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "compiler/te/compute_dag.h"

namespace tunefarm::te {

// One StageAnalysis per tensor id (placeholders get an empty one).
std::vector<StageAnalysis> AnalyzeStages(const ComputeDag& dag);

// The space axes (kAxis ids) an index list uses.
std::set<int64_t> SpaceAxesUsed(const std::vector<Expr>& indices);

}  // namespace tunefarm::te
