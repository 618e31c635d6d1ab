#include "cli/model_common.h"

#include "compiler/frontend/bound_input.h"
#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "compiler/frontend/onnx_importer.h"
#ifdef TUNEFARM_HAVE_TUNER
#include "tuner/search_space/gpu_default_program.h"
#endif

namespace tunefarm::cli {

absl::StatusOr<graph::Graph> ImportModel(const std::string& path, const ParsedFlags& flags) {
  frontend::ImportOptions options;
  options.strict_input_shapes = true;  // the shapes are the user's: check them against the model
  for (const std::string& spec : flags.GetAll("input-shape")) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(StrCat("--input-shape '", spec, "': expected NAME=D,D,..."));
    }
    std::vector<int64_t> dims;
    for (std::string_view d : StrSplit(std::string_view(spec).substr(eq + 1), ',')) {
      int64_t v = 0;
      if (!ParseInt64(d, &v) || v < 1) {
        return absl::InvalidArgumentError(StrCat("--input-shape '", spec, "': '", d, "' is not a positive dimension"));
      }
      dims.push_back(v);
    }
    options.input_shapes[spec.substr(0, eq)] = dims;
  }
  if (absl::Status s = frontend::ReadBoundInputs(flags.GetAll("bind"), &options); !s.ok()) return s;
  return frontend::ImportOnnxFile(path, options);
}

absl::StatusOr<build::BuildOptions> BuildOptionsFromFlags(const ParsedFlags& flags, int default_threads) {
  build::BuildOptions options;
  if (flags.Has("target")) {
    auto target = codegen::Target::Parse(flags.Get("target"));
    if (!target.ok()) return absl::InvalidArgumentError(StrCat("--target: ", std::string(target.status().message())));
    options.target = *target;
  } else {
    options.target = codegen::HostTarget();
  }
  auto threads = flags.GetInt("threads", default_threads, 1, 1024);
  if (!threads.ok()) return threads.status();
  options.threads = static_cast<int>(*threads);
  const std::string untuned = flags.Has("untuned-gpu") ? flags.Get("untuned-gpu") : "program";
  if (untuned != "program" && untuned != "thread-per-point")
    return absl::InvalidArgumentError(StrCat("--untuned-gpu: expected program or thread-per-point, got '", untuned, "'"));
  if (flags.Has("untuned-gpu") && !options.target.IsCuda())
    return absl::InvalidArgumentError("--untuned-gpu needs a cuda --target");
#ifndef TUNEFARM_HAVE_TUNER
  if (flags.Has("untuned-gpu") && untuned == "program")
    return absl::InvalidArgumentError("--untuned-gpu program: this build has no tuner, whose default GPU programs they are");
#else
  // An untuned GPU kernel: shared and register tiles by fixed rules, not one thread per point.
  if (options.target.IsCuda() && untuned == "program") {
    const tuner::SearchTarget target = tuner::SearchTarget::FromTarget(options.target);
    options.default_schedule = [target](std::shared_ptr<const te::ComputeDag> dag) {
      return tuner::GpuDefaultProgram(std::move(dag), target);
    };
  }
#endif
  return options;
}

}  // namespace tunefarm::cli
