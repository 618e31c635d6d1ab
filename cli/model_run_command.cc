// `tunefarm run MODEL.so --input [NAME=]FILE ... [--output [NAME=]FILE ...]`: runs an artifact
// once through the deploy runtime's C API, the way a device would.
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "cli/command.h"
#include "cli/model_runtime.h"
#include "cli/subcommands.h"
#include "compiler/frontend/tensor_file.h"
#include "compiler/graph/host_tensor.h"
#include "compiler/te/dtype.h"
#include "common/strings.h"

namespace tunefarm::cli {
namespace {

const CommandSpec& Spec() {
  static const CommandSpec spec{
      "run",
      "Runs a compiled model once. FILE is raw little-endian (.bin), NumPy (.npy) or an ONNX TensorProto (.pb).",
      {{"input", 'i', "[NAME=]FILE", "one per model input, by name or in order", false, true},
       {"output", 'o', "[NAME=]FILE", "write an output (by name or in order); without it outputs are summarized", false, true},
       {"expect", 0, "[NAME=]FILE", "compare an output with a reference file; fail beyond --tolerance", false, true},
       {"tolerance", 0, "T", "largest absolute difference --expect accepts (default 1e-3)"},
       {"threads", 0, "N", "threads (default: what the model was compiled for)"}},
      {"MODEL.so"}};
  return spec;
}

struct Binding {
  std::string name;  // empty: by position
  std::string path;
};

Binding ParseBinding(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos) return {"", text};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// Which model tensor each binding names: by name, else by its position among the bindings.
absl::StatusOr<std::vector<int>> Resolve(const std::vector<Binding>& bindings, const std::vector<TensorInfo>& tensors,
                                         const char* what) {
  std::vector<int> index;
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (bindings[i].name.empty()) {
      if (i >= tensors.size()) return absl::InvalidArgumentError(StrCat("the model has only ", tensors.size(), " ", what, "s"));
      index.push_back(static_cast<int>(i));
      continue;
    }
    int found = -1;
    for (size_t t = 0; t < tensors.size(); ++t) {
      if (tensors[t].name == bindings[i].name) found = static_cast<int>(t);
    }
    if (found < 0) {
      std::vector<std::string> names;
      for (const TensorInfo& t : tensors) names.push_back(t.name);
      return absl::InvalidArgumentError(StrCat("the model has no ", what, " '", bindings[i].name, "' (", what, "s: ", StrJoin(names, ", "), ")"));
    }
    index.push_back(found);
  }
  return index;
}

// The elements of an output of any dtype as doubles (float16/bfloat16 widened, integers exact up
// to 2^53); nullopt for a dtype this build does not know.
std::optional<std::vector<double>> Values(const std::string& dtype, const std::string& bytes,
                                          size_t limit = std::numeric_limits<size_t>::max()) {
  std::optional<te::DType> t = te::ParseDType(dtype);
  if (!t) return std::nullopt;
  const size_t count = std::min(limit, bytes.size() / te::DTypeBytes(*t));
  graph::HostTensor tensor;
  tensor.dtype = *t;
  tensor.bytes.assign(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(count * te::DTypeBytes(*t)));
  std::vector<double> values(count);
  for (size_t i = 0; i < values.size(); ++i) values[i] = tensor.GetDouble(static_cast<int64_t>(i));
  return values;
}

std::string Summary(const TensorInfo& info, const std::string& bytes) {
  std::string text = StrCat(info.name, ": ", info.dtype, ShapeText(info.shape));
  if (std::optional<std::vector<double>> v = Values(info.dtype, bytes, 7)) {  // 6 shown, a 7th means more
    StrAppend(&text, " [");
    for (size_t i = 0; i < v->size() && i < 6; ++i) StrAppend(&text, i ? ", " : "", (*v)[i]);
    StrAppend(&text, v->size() > 6 ? ", ...]" : "]");
  }
  return text;
}

// The largest absolute difference between two tensors of one dtype. NaN matches NaN and an
// infinity the same infinity; NaN against a number counts as infinitely far.
double MaxAbsDifference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) continue;
    const double d = std::fabs(a[i] - b[i]);
    worst = std::max(worst, std::isnan(d) ? INFINITY : d);
  }
  return worst;
}

// --expect: every named output against its reference; false when one is off or unreadable.
bool CheckExpectations(const LoadedModel& model, const std::vector<Binding>& expects, const std::vector<int>& index,
                       double tolerance) {
  bool ok = true;
  for (size_t i = 0; i < expects.size(); ++i) {
    const TensorInfo& info = model.outputs()[index[i]];
    auto want = frontend::ReadTensorFile(expects[i].path, info.bytes);
    auto got = model.GetOutput(index[i]);
    if (!want.ok() || !got.ok()) {
      std::fprintf(stderr, "tunefarm run: %s\n", std::string((!want.ok() ? want.status() : got.status()).message()).c_str());
      ok = false;
      continue;
    }
    // A .bin has no dtype: it is read as the output's.
    // ONNX's test data holds bfloat16 as uint16 bit patterns (as `run` inputs accept them).
    const bool same_dtype = want->dtype.empty() || want->dtype == info.dtype ||
                            (info.dtype == "bfloat16" && want->dtype == "uint16");
    std::optional<std::vector<double>> got_values = Values(info.dtype, *got);
    if (!same_dtype || want->bytes.size() != got->size() || !got_values) {
      std::fprintf(stderr, "tunefarm run: --expect %s: the output is %s%s (%zu bytes), the file holds %s (%zu bytes)\n",
                   expects[i].path.c_str(), info.dtype.c_str(), ShapeText(info.shape).c_str(), got->size(),
                   want->dtype.empty() ? "raw bytes" : want->dtype.c_str(), want->bytes.size());
      ok = false;
      continue;
    }
    double err = MaxAbsDifference(*got_values, *Values(info.dtype, want->bytes));
    bool pass = err <= tolerance;
    std::printf("%s: max abs error %.3g against %s (tolerance %.3g): %s\n", info.name.c_str(), err,
                expects[i].path.c_str(), tolerance, pass ? "ok" : "MISMATCH");
    ok = ok && pass;
  }
  return ok;
}

}  // namespace

int RunRunCommand(int argc, char** argv) {
  ParseResult parsed = ParseCommandLine(Spec(), argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  const ParsedFlags& flags = *parsed.flags;
  auto threads = flags.GetInt("threads", 0, 0, 1024);
  if (!threads.ok()) return ReportUsageError(Spec(), threads.status());
  auto model = LoadedModel::Load(flags.positionals()[0], static_cast<int>(*threads));
  if (!model.ok()) return ReportFailure("run", model.status());

  std::vector<Binding> inputs, outputs;
  for (const std::string& s : flags.GetAll("input")) inputs.push_back(ParseBinding(s));
  for (const std::string& s : flags.GetAll("output")) outputs.push_back(ParseBinding(s));
  if (inputs.size() != (*model)->inputs().size()) {
    return ReportUsageError(Spec(), StrCat("the model has ", (*model)->inputs().size(), " inputs, ", inputs.size(),
                                           " --input given"));
  }
  auto in_index = Resolve(inputs, (*model)->inputs(), "input");
  if (!in_index.ok()) return ReportUsageError(Spec(), in_index.status());
  auto out_index = Resolve(outputs, (*model)->outputs(), "output");
  if (!out_index.ok()) return ReportUsageError(Spec(), out_index.status());
  std::vector<Binding> expects;
  for (const std::string& s : flags.GetAll("expect")) expects.push_back(ParseBinding(s));
  auto expect_index = Resolve(expects, (*model)->outputs(), "output");
  if (!expect_index.ok()) return ReportUsageError(Spec(), expect_index.status());
  double tolerance = 1e-3;
  if (flags.Has("tolerance")) {
    char* end = nullptr;
    const std::string text = flags.Get("tolerance");
    tolerance = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(tolerance >= 0)) {
      return ReportUsageError(Spec(), StrCat("--tolerance '", text, "' is not a non-negative number"));
    }
  }

  for (size_t i = 0; i < inputs.size(); ++i) {
    auto file = frontend::ReadTensorFile(inputs[i].path, (*model)->inputs()[(*in_index)[i]].bytes);
    if (!file.ok()) return ReportFailure("run", file.status());
    absl::Status s = (*model)->SetInput((*in_index)[i], *file);
    if (!s.ok()) return ReportFailure("run", s);
  }
  absl::Status ran = (*model)->Run();
  if (!ran.ok()) return ReportFailure("run", ran);

  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorInfo& info = (*model)->outputs()[(*out_index)[i]];
    auto bytes = (*model)->GetOutput((*out_index)[i]);
    if (!bytes.ok()) return ReportFailure("run", bytes.status());
    absl::Status s = frontend::WriteTensorFile(outputs[i].path, frontend::TensorFile{info.dtype, info.shape, true, *bytes});
    if (!s.ok()) return ReportFailure("run", s);
  }
  if (!expects.empty()) return CheckExpectations(**model, expects, *expect_index, tolerance) ? kExitOk : kExitFailure;
  if (outputs.empty()) {
    for (size_t i = 0; i < (*model)->outputs().size(); ++i) {
      auto bytes = (*model)->GetOutput(static_cast<int>(i));
      if (!bytes.ok()) return ReportFailure("run", bytes.status());
      std::printf("%s\n", Summary((*model)->outputs()[i], *bytes).c_str());
    }
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
