#include "cli/model_runtime.h"

#include <algorithm>
#include <cstring>

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

namespace {

std::string PseudoRandomBytes(const TensorInfo& info, uint64_t seed) {
  std::string bytes(info.bytes, '\0');
  uint64_t state = seed;
  auto next = [&state] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  if (info.dtype == "float32") {
    for (size_t i = 0; i < bytes.size() / 4; ++i) {
      float v = static_cast<float>(static_cast<double>(next() >> 11) * 0x1.0p-53 * 2.0 - 1.0);
      std::memcpy(&bytes[i * 4], &v, 4);
    }
  } else if (info.dtype == "int64" || info.dtype == "int32") {
    size_t width = info.dtype == "int64" ? 8 : 4;
    for (size_t i = 0; i < bytes.size() / width; ++i) {
      int64_t v = static_cast<int64_t>(next() % 2);
      std::memcpy(&bytes[i * width], &v, width);  // little-endian: the low bytes
    }
  }
  return bytes;
}

}  // namespace

absl::Status SetPseudoRandomInputs(LoadedModel& model, uint64_t seed) {
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    const TensorInfo& info = model.inputs()[i];
    absl::Status s = model.SetInput(static_cast<int>(i),
                                    frontend::TensorFile{info.dtype, info.shape, true, PseudoRandomBytes(info, seed + i)});
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

absl::StatusOr<std::vector<double>> CallMedians(LoadedModel& model, int64_t runs) {
  std::vector<std::vector<double>> per_call(model.calls().size());
  for (int64_t r = 0; r < runs; ++r) {
    auto seconds = model.RunProfiled();
    if (!seconds.ok()) return seconds.status();
    for (size_t c = 0; c < seconds->size() && c < per_call.size(); ++c) per_call[c].push_back((*seconds)[c]);
  }
  std::vector<double> out;
  for (size_t c = 0; c < per_call.size(); ++c) {
    if (per_call[c].empty()) return absl::InternalError(StrCat("the profiled runs timed no call ", c));
    out.push_back(Median(per_call[c]));
  }
  return out;
}

}  // namespace tunefarm::cli
