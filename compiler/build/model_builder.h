// The graph compiler's top level: an imported graph → optimized and fused graph → execution plan
// (tasks, values, kernel calls, memory) → one model artifact (docs/model-artifact.md).
//   auto plan = PlanModel(graph, options);          // no code generation: fast, for inspect
//   auto so_bytes = BuildArtifact(&*plan, options);  // schedules, lowers and compiles every task
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/build/execution_plan.h"
#include "compiler/build/schedule_source.h"
#include "compiler/codegen/target.h"
#include "compiler/graph/graph.h"
#include "compiler/passes/fusion.h"
#include "compiler/passes/pass_pipeline.h"
#include "compiler/schedule/state.h"

namespace tunefarm::build {

struct BuildOptions {
  codegen::Target target;
  int threads = 1;
  // Tuned schedules by (workload, target, threads); null or no match: the default rules.
  const ScheduleSource* schedules = nullptr;
  passes::PassOptions passes;
  // Called with one line per phase and per kernel (compiling a large model takes seconds).
  std::function<void(std::string_view)> progress;
  // Run the conv region in NCHW[x]c with x = the target's float32 vector lanes (unless
  // passes.layout_block already names a block).
  bool nchwc_layout = true;
  // The schedule of a kernel no stored schedule covers; null, or where it fails or does not
  // lower: the built-in rules (the CPU default rules; one thread per output point on a GPU).
  // The CLI gives a GPU target the tuner's default program here (tuner/search_space/
  // gpu_default_program.h): build does not depend on the tuner.
  std::function<absl::StatusOr<schedule::State>(std::shared_ptr<const te::ComputeDag>)> default_schedule;
};

struct ModelPlan {
  graph::Graph graph;  // after the graph passes
  passes::FusionPlan fusion;
  ExecutionPlan exec;
};

absl::StatusOr<ModelPlan> PlanModel(const graph::Graph& imported, const BuildOptions& options);

// The fewest input and output channels for which a 3x3 conv runs as Winograd on `target`
// (passes::PassOptions::min_winograd_channels): where the transforms start to pay depends on
// the machine's FMA throughput against its memory.
int MinWinogradChannels(const codegen::Target& target);

// Chooses every task's schedule (recorded in its Task::schedule), lowers and compiles the tasks
// into one shared object with the plan and the parameters embedded. Returns its bytes.
absl::StatusOr<std::string> BuildArtifact(ModelPlan* plan, const BuildOptions& options);

// The execution plan JSON embedded in the artifact (format 1).
std::string PlanToJson(const ModelPlan& plan, const BuildOptions& options);

}  // namespace tunefarm::build
