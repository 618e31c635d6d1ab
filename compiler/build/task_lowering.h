// One task → one loop-IR function: the ScheduleSource's schedule when it has one that replays
// on this DAG, else the default rules.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/build/execution_plan.h"
#include "compiler/build/model_builder.h"
#include "compiler/tir/layout_transform.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::build {

// Sets task->schedule to where the schedule came from; `rewritten`, if given, receives the weight
// layouts the schedule rewrote (param_layouts.h applies them to the calls).
absl::StatusOr<tir::PrimFunc> LowerTask(Task* task, const BuildOptions& options,
                                        std::vector<tir::RewrittenParam>* rewritten = nullptr);

}  // namespace tunefarm::build
