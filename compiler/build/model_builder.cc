#include "compiler/build/model_builder.h"

#include <limits>

#include "compiler/build/param_layouts.h"
#include "compiler/build/task_lowering.h"
#include "compiler/codegen/codegen.h"
#include "compiler/passes/layout.h"
#include "common/strings.h"
#include "compiler/codegen/host_target.h"
#include "deploy/artifact_blobs.h"
#include "deploy/artifact_checksum.h"

namespace tunefarm::build {
namespace {

void Report(const BuildOptions& options, std::string_view line) {
  if (options.progress) options.progress(line);
}

}  // namespace

// Measured on squeezenet1_1, whose fire modules have 3x3 convs with 16 to 64 input channels:
// on Zen 5 (full-rate 512-bit FMA) their tuned direct convs beat Winograd below 64 channels
// (102-164 against 116-209 us); on Zen 4, which runs AVX-512 on 256-bit units, Winograd from
// 16 channels made the model 15-17% faster, with the default rules and tuned alike. Other
// machines keep 64 until measured.
int MinWinogradChannels(const codegen::Target& target) {
  return target.cpu == "znver4" ? 16 : passes::kDefaultMinWinogradChannels;
}

absl::StatusOr<ModelPlan> PlanModel(const graph::Graph& imported, const BuildOptions& options) {
  passes::PassOptions pass_options = options.passes;
  if (options.target.IsCuda()) {
    // A GPU's kernels are tiled by threads, not by vector lanes: the plain NCHW layout, and no
    // Winograd (its transforms are separate launches with their own trips through GPU memory).
    pass_options.layout_block = 0;
    pass_options.min_winograd_channels = std::numeric_limits<int>::max();
  } else if (options.nchwc_layout && pass_options.layout_block == 0)
    pass_options.layout_block = options.target.VectorLanes(te::DType::kFloat32);
  if (pass_options.min_winograd_channels == 0) pass_options.min_winograd_channels = MinWinogradChannels(options.target);
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

// A GPU artifact: a host shared object without kernels, embedding the plan, the parameters and
// the PTX library of the plan's kernels (docs/model-artifact.md), which the runtime uploads to
// the GPU at load.
absl::StatusOr<std::string> BuildGpuArtifact(const std::vector<tir::PrimFunc>& funcs, const ModelPlan& plan,
                                             const BuildOptions& options) {
  Report(options, StrCat("generating PTX for ", funcs.size(), " kernels (", options.target.ToString(), ")"));
  absl::StatusOr<std::string> ptx = codegen::BuildKernelLibrary(funcs, options.target);
  if (!ptx.ok()) return ptx.status();
  std::vector<codegen::EmbeddedBlob> blobs(3);
  blobs[0].symbol = deploy::kModelPlanSymbol;
  blobs[0].bytes = PlanToJson(plan, options);
  blobs[0].alignment = 8;
  blobs[1].symbol = deploy::kModelParamsSymbol;
  blobs[1].bytes = plan.exec.params;
  blobs[1].section = ".tunefarm.params";
  blobs[2].symbol = deploy::kModelPtxSymbol;
  blobs[2].bytes = std::move(*ptx);
  blobs[2].alignment = 8;
  absl::StatusOr<std::string> image = codegen::BuildSharedObject({}, codegen::HostTarget(), blobs);
  if (!image.ok()) return image.status();
  return deploy::AppendArtifactTrailer(std::move(*image));
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
  if (options.target.IsCuda()) return BuildGpuArtifact(funcs, *plan, options);
  std::vector<codegen::EmbeddedBlob> blobs(2);
  blobs[0].symbol = deploy::kModelPlanSymbol;
  blobs[0].bytes = PlanToJson(*plan, options);
  blobs[0].alignment = 8;
  blobs[1].symbol = deploy::kModelParamsSymbol;
  blobs[1].bytes = plan->exec.params;
  blobs[1].section = ".tunefarm.params";
  Report(options, StrCat("generating code for ", funcs.size(), " kernels with ", plan->exec.params.size(),
                         " bytes of parameters"));
  absl::StatusOr<std::string> image = codegen::BuildSharedObject(funcs, options.target, blobs);
  if (!image.ok()) return image.status();
  return deploy::AppendArtifactTrailer(std::move(*image));  // checked before every load
}

}  // namespace tunefarm::build
