#include "compiler/frontend/bound_input.h"

#include <optional>
#include <utility>

#include "common/strings.h"
#include "compiler/frontend/tensor_file.h"

namespace tunefarm::frontend {
namespace {

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
  absl::StatusOr<int64_t> count = graph::CheckedNumElements(file->shape, te::DTypeBytes(*dtype));
  if (!count.ok() || static_cast<uint64_t>(*count) * te::DTypeBytes(*dtype) != file->bytes.size()) {
    return absl::InvalidArgumentError(StrCat("--bind ", name, ": ", path, ": its shape ",
                                             graph::ShapeToString(file->shape), " does not match its ",
                                             file->bytes.size(), " bytes of ", file->dtype));
  }
  graph::HostTensor value;
  value.dtype = *dtype;
  value.shape = file->shape;
  value.bytes.assign(file->bytes.begin(), file->bytes.end());
  return std::make_pair(name, std::move(value));
}


}  // namespace

absl::Status ReadBoundInputs(const std::vector<std::string>& specs, ImportOptions* options) {
  for (const std::string& spec : specs) {
    absl::StatusOr<std::pair<std::string, graph::HostTensor>> bound = ReadBoundInput(spec);
    if (!bound.ok()) return bound.status();
    if (!options->constant_inputs.emplace(bound->first, std::move(bound->second)).second) {
      return absl::InvalidArgumentError(StrCat("--bind ", bound->first, ": given twice"));
    }
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::frontend
