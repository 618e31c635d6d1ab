#include "compiler/build/model_builder.h"

#include "compiler/build/param_layouts.h"
#include "compiler/build/task_lowering.h"
#include "compiler/codegen/codegen.h"
#include "common/strings.h"
#include "deploy/artifact_checksum.h"

namespace tunefarm::build {
namespace {

void Report(const BuildOptions& options, std::string_view line) {
  if (options.progress) options.progress(line);
}

}  // namespace

absl::StatusOr<ModelPlan> PlanModel(const graph::Graph& imported, const BuildOptions& options) {
  passes::PassOptions pass_options = options.passes;
  if (options.nchwc_layout && pass_options.layout_block == 0)
    pass_options.layout_block = options.target.VectorLanes(te::DType::kFloat32);
  auto optimized = passes::OptimizeGraph(imported, pass_options);
  if (!optimized.ok()) return optimized.status();
  auto fusion = passes::FuseOps(*optimized);
  if (!fusion.ok()) return fusion.status();
  auto exec = PlanExecution(*optimized, *fusion);
  if (!exec.ok()) return exec.status();
  Report(options, StrCat("planned ", exec->calls.size(), " kernel calls, ", exec->tasks.size(), " distinct kernels, arena ",
                         exec->memory.arena_bytes, " bytes"));
  return ModelPlan{std::move(*optimized), std::move(*fusion), std::move(*exec)};
}

absl::StatusOr<std::string> BuildArtifact(ModelPlan* plan, const BuildOptions& options) {
  std::vector<tir::PrimFunc> funcs;
  std::vector<std::vector<tir::RewrittenParam>> rewritten(plan->exec.tasks.size());
  for (size_t i = 0; i < plan->exec.tasks.size(); ++i) {
    Task& task = plan->exec.tasks[i];
    auto func = LowerTask(&task, options, &rewritten[i]);
    if (!func.ok()) return func.status();
    funcs.push_back(std::move(*func));
    Report(options, StrCat("kernel ", i + 1, "/", plan->exec.tasks.size(), " ", task.kernel_name, " (", task.schedule,
                           ")"));
  }
  // Weights some kernel reads in a rewritten layout are transformed now, once.
  if (auto s = ApplyParamLayouts(rewritten, &plan->exec); !s.ok()) return s;
  std::vector<codegen::EmbeddedBlob> blobs(2);
  blobs[0].symbol = "tunefarm_model_plan";
  blobs[0].bytes = PlanToJson(*plan, options);
  blobs[0].alignment = 8;
  blobs[1].symbol = "tunefarm_model_params";
  blobs[1].bytes = plan->exec.params;
  blobs[1].section = ".tunefarm.params";
  Report(options, StrCat("generating code for ", funcs.size(), " kernels with ", plan->exec.params.size(),
                         " bytes of parameters"));
  absl::StatusOr<std::string> image = codegen::BuildSharedObject(funcs, options.target, blobs);
  if (!image.ok()) return image.status();
  return deploy::AppendArtifactTrailer(std::move(*image));  // checked before every load
}

}  // namespace tunefarm::build
