#include "cli/model_runtime.h"

#include "common/strings.h"
#include "deploy/tunefarm_runtime.h"

namespace tunefarm::cli {
namespace {

absl::Status RuntimeError(const std::string& what) {
  return absl::InternalError(StrCat(what, ": ", tunefarm_last_error()));
}

TensorInfo ToInfo(const tunefarm_tensor_info& info) {
  TensorInfo t;
  t.name = info.name;
  t.dtype = info.dtype;
  t.shape.assign(info.shape, info.shape + info.ndim);
  t.bytes = info.bytes;
  return t;
}

std::vector<int64_t> WithoutLeadingOnes(const std::vector<int64_t>& shape) {
  size_t first = 0;
  while (first < shape.size() && shape[first] == 1) ++first;
  return std::vector<int64_t>(shape.begin() + static_cast<std::ptrdiff_t>(first), shape.end());
}

}  // namespace

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(std::to_string(d));
  return StrCat("[", StrJoin(dims, ","), "]");
}

absl::StatusOr<std::unique_ptr<LoadedModel>> LoadedModel::Load(const std::string& path, int threads) {
  tunefarm_model* raw = nullptr;
  if (tunefarm_model_load(path.c_str(), threads, &raw) != TUNEFARM_RT_OK) {
    const std::string error = tunefarm_last_error();  // most of the runtime's errors name the file
    return absl::InvalidArgumentError(error.find(path) == std::string::npos ? StrCat(path, ": ", error) : error);
  }
  std::unique_ptr<LoadedModel> model(new LoadedModel(raw));
  for (int i = 0; i < tunefarm_model_num_inputs(raw); ++i) {
    tunefarm_tensor_info info;
    if (tunefarm_model_input_info(raw, i, &info) != TUNEFARM_RT_OK) return RuntimeError(StrCat("input ", i));
    model->inputs_.push_back(ToInfo(info));
  }
  for (int i = 0; i < tunefarm_model_num_outputs(raw); ++i) {
    tunefarm_tensor_info info;
    if (tunefarm_model_output_info(raw, i, &info) != TUNEFARM_RT_OK) return RuntimeError(StrCat("output ", i));
    model->outputs_.push_back(ToInfo(info));
  }
  for (int i = 0; i < tunefarm_model_num_calls(raw); ++i) {
    tunefarm_call_info info;
    if (tunefarm_model_call_info(raw, i, &info) != TUNEFARM_RT_OK) return RuntimeError(StrCat("call ", i));
    model->calls_.push_back(CallInfo{info.kernel, info.group, info.ops});
  }
  return model;
}

LoadedModel::~LoadedModel() { tunefarm_model_free(model_); }

absl::Status LoadedModel::SetInput(int index, const frontend::TensorFile& file) {
  const TensorInfo& info = inputs_[index];
  // NumPy has no bfloat16, so ONNX's own test data stores bfloat16 tensors as their uint16 bit
  // patterns: such a file feeds a bfloat16 input as it is (same bytes).
  const bool bfloat16_bits = info.dtype == "bfloat16" && file.dtype == "uint16";
  if (!file.dtype.empty() && file.dtype != info.dtype && !bfloat16_bits) {
    return absl::InvalidArgumentError(StrCat("input '", info.name, "' is ", info.dtype, ", the file holds ", file.dtype));
  }
  // Leading 1s may differ ([3,224,224] for [1,3,224,224]: a batch of one); any other
  // difference is a wrong shape even when the element count matches ([224,224,3]).
  if (file.has_shape && WithoutLeadingOnes(file.shape) != WithoutLeadingOnes(info.shape)) {
    return absl::InvalidArgumentError(StrCat("input '", info.name, "' has shape ", ShapeText(info.shape),
                                             ", the file holds ", ShapeText(file.shape)));
  }
  if (file.bytes.size() != info.bytes) {
    return absl::InvalidArgumentError(StrCat("input '", info.name, "' needs ", info.bytes, " bytes (", info.dtype,
                                             ShapeText(info.shape), "), the file holds ", file.bytes.size()));
  }
  if (tunefarm_model_set_input(model_, index, file.bytes.data(), file.bytes.size()) != TUNEFARM_RT_OK) {
    return RuntimeError(StrCat("input '", info.name, "'"));
  }
  return absl::OkStatus();
}

absl::Status LoadedModel::Run() {
  if (tunefarm_model_run(model_) != TUNEFARM_RT_OK) return RuntimeError("run");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> LoadedModel::RunProfiled() {
  std::vector<double> seconds(calls_.size());
  if (tunefarm_model_run_profiled(model_, seconds.data(), static_cast<int>(seconds.size())) != TUNEFARM_RT_OK)
    return RuntimeError("profiled run");
  return seconds;
}

absl::StatusOr<std::string> LoadedModel::GetOutput(int index) const {
  std::string bytes(outputs_[index].bytes, '\0');
  if (tunefarm_model_get_output(model_, index, bytes.data(), bytes.size()) != TUNEFARM_RT_OK) {
    return RuntimeError(StrCat("output '", outputs_[index].name, "'"));
  }
  return bytes;
}

}  // namespace tunefarm::cli
