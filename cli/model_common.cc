#include "cli/model_common.h"

#include "cli/tensor_file.h"
#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "compiler/frontend/onnx_importer.h"

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
  for (const std::string& spec : flags.GetAll("bind")) {
    absl::StatusOr<std::pair<std::string, graph::HostTensor>> bound = ReadBoundInput(spec);
    if (!bound.ok()) return bound.status();
    if (!options.constant_inputs.emplace(bound->first, std::move(bound->second)).second) {
      return absl::InvalidArgumentError(StrCat("--bind ", bound->first, ": given twice"));
    }
  }
  return frontend::ImportOnnxFile(path, options);
}

absl::StatusOr<std::pair<std::string, graph::HostTensor>> ReadBoundInput(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return absl::InvalidArgumentError(StrCat("--bind '", spec, "': expected NAME=FILE"));
  }
  const std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
  absl::StatusOr<TensorFile> file = ReadTensorFile(path, kMaxBoundInputBytes);
  if (!file.ok()) return absl::Status(file.status().code(), StrCat("--bind ", name, ": ", std::string(file.status().message())));
  if (!file->has_shape) {
    return absl::InvalidArgumentError(
        StrCat("--bind ", name, ": ", path, " has no dtype or shape (raw bytes); give a .npy or an ONNX TensorProto .pb"));
  }
  std::optional<te::DType> dtype = te::ParseDType(file->dtype);
  if (!dtype) return absl::InvalidArgumentError(StrCat("--bind ", name, ": ", path, " holds ", file->dtype, ", which tunefarm does not compute with"));
  graph::HostTensor value;
  value.dtype = *dtype;
  value.shape = file->shape;
  value.bytes.assign(file->bytes.begin(), file->bytes.end());
  return std::make_pair(name, std::move(value));
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
  return options;
}

}  // namespace tunefarm::cli
