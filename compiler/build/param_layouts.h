// Weights in the layout the tuned kernels read them in. A kernel whose schedule rewrote a weight
// layout (schedule step "LR") takes the rewritten tensor: for every call of it the compiler
// transforms the weights once (shared by calls that pass the same weights) and the call reads
// the new parameter; weights that no call reads any more leave the parameter blob.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "compiler/build/execution_plan.h"
#include "compiler/tir/layout_transform.h"

namespace tunefarm::build {

// `rewritten[t]`: the rewritten parameters of task t's kernel (tir::RewrittenParams of its state).
absl::Status ApplyParamLayouts(const std::vector<std::vector<tir::RewrittenParam>>& rewritten, ExecutionPlan* plan);

}  // namespace tunefarm::build
