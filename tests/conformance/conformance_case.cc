#include "tests/conformance/conformance_case.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/strings.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/frontend/onnx_tensor.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::conformance {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(StrCat(path, ": cannot open"));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Inputs the importer needs as constants: (op, input index) pairs of shape-like operands.
bool IsConstantOperand(const std::string& op, int index) {
  static const std::map<std::string, std::set<int>> kOperands = {
      {"Reshape", {1}}, {"Slice", {1, 2, 3, 4}}, {"Pad", {1, 2, 3}}, {"Clip", {1, 2}},
      {"Squeeze", {1}}, {"Unsqueeze", {1}},      {"Expand", {1}},    {"Tile", {1}},
      {"ConstantOfShape", {0}}, {"Dropout", {1, 2}}, {"Split", {1}}, {"Trilu", {1}}, {"CumSum", {1}},
      {"Range", {0, 1, 2}}, {"OneHot", {1}}, {"TopK", {1}}, {"HannWindow", {0}}, {"HammingWindow", {0}},
      {"BlackmanWindow", {0}}, {"Resize", {1, 2, 3}}, {"Upsample", {1}}};
  if (StartsWith(op, "Reduce")) return index == 1;
  auto it = kOperands.find(op);
  return it != kOperands.end() && it->second.count(index) != 0;
}

std::string TypeProblem(const onnx::TypeProto& t) {
  if (t.has_sequence_type()) return "sequence type";
  if (t.has_optional_type()) return "optional type";
  if (t.has_map_type()) return "map type";
  if (!t.has_tensor_type()) return "non-tensor type";
  auto d = frontend::DTypeFromOnnx(t.tensor_type().elem_type());
  if (!d.ok()) return std::string(d.status().message());
  return "";
}

absl::StatusOr<HostTensor> ReadTensor(const std::string& path) {
  auto bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(*bytes)) return absl::InvalidArgumentError(StrCat(path, ": not a TensorProto"));
  return frontend::HostTensorFromOnnx(proto);
}

}  // namespace

std::string_view OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPassed: return "PASSED";
    case Outcome::kFailed: return "FAILED";
    case Outcome::kUnsupported: return "UNSUPPORTED";
  }
  return "?";
}

std::vector<std::string> ListCases(const std::string& root) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path().string());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

absl::StatusOr<Case> LoadCase(const std::string& dir) {
  Case c;
  c.dir = dir;
  c.name = fs::path(dir).filename().string();
  auto bytes = ReadFile((fs::path(dir) / "model.onnx").string());
  if (!bytes.ok()) return bytes.status();
  c.model_bytes = std::move(*bytes);
  onnx::ModelProto model;
  if (!model.ParseFromString(c.model_bytes)) return absl::InvalidArgumentError(StrCat(dir, ": model.onnx does not parse"));
  const onnx::GraphProto& g = model.graph();
  std::set<std::string> initializers;
  for (const auto& init : g.initializer()) initializers.insert(init.name());
  for (const auto& n : g.node()) {
    if (std::find(c.ops.begin(), c.ops.end(), n.op_type()) == c.ops.end()) c.ops.push_back(n.op_type());
    for (int i = 0; i < n.input_size(); ++i)
      if (IsConstantOperand(n.op_type(), i)) c.constant_inputs.insert(n.input(i));
  }
  for (const auto& v : g.input()) {
    if (initializers.count(v.name())) continue;
    c.input_names.push_back(v.name());
    if (std::string why = TypeProblem(v.type()); !why.empty() && c.unsupported.empty())
      c.unsupported = StrCat("input '", v.name(), "': ", why);
  }
  for (const auto& v : g.output()) {
    c.output_names.push_back(v.name());
    if (std::string why = TypeProblem(v.type()); !why.empty() && c.unsupported.empty())
      c.unsupported = StrCat("output '", v.name(), "': ", why);
  }
  if (!c.unsupported.empty()) return c;
  std::vector<std::string> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && StartsWith(e.path().filename().string(), "test_data_set_")) sets.push_back(e.path().string());
  std::sort(sets.begin(), sets.end());
  for (const std::string& s : sets) {
    DataSet ds;
    ds.name = fs::path(s).filename().string();
    for (size_t i = 0; i < c.input_names.size(); ++i) {
      auto t = ReadTensor((fs::path(s) / StrCat("input_", i, ".pb")).string());
      if (!t.ok()) return absl::Status(t.status().code(), StrCat(ds.name, " input ", i, ": ", std::string(t.status().message())));
      ds.inputs.push_back(std::move(*t));
    }
    for (size_t i = 0; i < c.output_names.size(); ++i) {
      auto t = ReadTensor((fs::path(s) / StrCat("output_", i, ".pb")).string());
      if (!t.ok()) return absl::Status(t.status().code(), StrCat(ds.name, " output ", i, ": ", std::string(t.status().message())));
      ds.outputs.push_back(std::move(*t));
    }
    c.data_sets.push_back(std::move(ds));
  }
  if (c.data_sets.empty()) return absl::InvalidArgumentError(StrCat(dir, ": no test_data_set"));
  return c;
}

absl::Status Compare(const HostTensor& got, const HostTensor& want) {
  if (got.dtype != want.dtype || got.shape != want.shape)
    return absl::InvalidArgumentError(StrCat("got ", te::DTypeName(got.dtype), graph::ShapeToString(got.shape), ", want ",
                                             te::DTypeName(want.dtype), graph::ShapeToString(want.shape)));
  int64_t n = want.NumElements();
  if (!te::IsFloat(want.dtype) && !te::IsStorageFloat(want.dtype)) {
    for (int64_t i = 0; i < n; ++i)
      if (got.GetInt(i) != want.GetInt(i))
        return absl::InvalidArgumentError(StrCat("element ", i, ": got ", got.GetInt(i), ", want ", want.GetInt(i)));
    return absl::OkStatus();
  }
  constexpr double kRtol = 1e-3, kAtol = 1e-7;
  double scale = 1;
  for (int64_t i = 0; i < n; ++i)
    if (std::isfinite(want.GetDouble(i))) scale = std::max(scale, std::fabs(want.GetDouble(i)));
  double atol = kAtol * scale;
  for (int64_t i = 0; i < n; ++i) {
    double g = got.GetDouble(i), w = want.GetDouble(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    if (!(std::fabs(g - w) <= atol + kRtol * std::fabs(w)))
      return absl::InvalidArgumentError(StrCat("element ", i, ": got ", g, ", want ", w, " (|diff| ", std::fabs(g - w),
                                               ")"));
  }
  return absl::OkStatus();
}

namespace {
// NumPy has no bfloat16, so the ONNX test generator stores bfloat16 tensors as their uint16 bit
// patterns: read those as the bfloat16 the graph declares (same bytes).
HostTensor AsDeclared(HostTensor t, te::DType declared) {
  if (declared == te::DType::kBFloat16 && t.dtype == te::DType::kUInt16) t.dtype = declared;
  return t;
}
// The NAMEs of every "--bind NAME=" an import error suggests.
std::vector<std::string> BindsAskedFor(const std::string& message) {
  std::vector<std::string> names;
  const std::string flag = "--bind ";
  for (size_t at = message.find(flag); at != std::string::npos; at = message.find(flag, at + 1)) {
    const size_t start = at + flag.size(), eq = message.find('=', start);
    if (eq != std::string::npos) names.push_back(message.substr(start, eq - start));
  }
  return names;
}

}  // namespace

Result RunCase(const Case& c, const CaseExecutor& executor) {
  if (!c.unsupported.empty()) return {Outcome::kUnsupported, c.unsupported};
  for (const DataSet& ds : c.data_sets) {
    frontend::ImportOptions options;
    std::map<std::string, const HostTensor*> by_name;
    for (size_t i = 0; i < c.input_names.size(); ++i) {
      by_name[c.input_names[i]] = &ds.inputs[i];
      if (c.constant_inputs.count(c.input_names[i])) options.constant_inputs[c.input_names[i]] = ds.inputs[i];
      // The data's shape is the one to run (a few generated models declare another, e.g.
      // CastLike's `like` as [3,4] beside data of shape [1]).
      options.input_shapes[c.input_names[i]] = ds.inputs[i].shape;
    }
    auto g = frontend::ImportOnnxBytes(c.model_bytes, options, c.name);
    // As a user would: bind the inputs the importer asks for with --bind, and import again.
    for (size_t retry = 0; !g.ok() && retry < c.input_names.size(); ++retry) {
      bool bound = false;
      for (const std::string& name : BindsAskedFor(std::string(g.status().message()))) {
        if (!by_name.count(name) || options.constant_inputs.count(name)) continue;
        options.constant_inputs[name] = *by_name[name];
        bound = true;
      }
      if (!bound) break;
      g = frontend::ImportOnnxBytes(c.model_bytes, options, c.name);
    }
    if (!g.ok()) return {Outcome::kUnsupported, StrCat("import: ", std::string(g.status().message()))};
    std::vector<HostTensor> inputs;
    for (const graph::Node& n : g->nodes()) {
      if (!n.IsInput()) continue;
      auto it = by_name.find(n.name);
      if (it == by_name.end()) return {Outcome::kFailed, StrCat("graph input '", n.name, "' has no data")};
      inputs.push_back(AsDeclared(*it->second, n.outputs[0].dtype));
    }
    auto outs = executor(*g, inputs);
    if (!outs.ok()) {
      Outcome o = outs.status().code() == absl::StatusCode::kUnimplemented ? Outcome::kUnsupported : Outcome::kFailed;
      return {o, StrCat(ds.name, ": ", std::string(outs.status().message()))};
    }
    if (outs->size() != ds.outputs.size())
      return {Outcome::kFailed, StrCat(ds.name, ": ", outs->size(), " outputs, want ", ds.outputs.size())};
    for (size_t i = 0; i < outs->size(); ++i)
      if (absl::Status s = Compare((*outs)[i], AsDeclared(ds.outputs[i], (*outs)[i].dtype)); !s.ok())
        return {Outcome::kFailed, StrCat(ds.name, " output ", i, " '", c.output_names[i], "': ", std::string(s.message()))};
  }
  return {Outcome::kPassed, ""};
}

absl::StatusOr<std::set<std::string>> ReadMustSupportOps(const std::string& coverage_md) {
  auto text = ReadFile(coverage_md);
  if (!text.ok()) return text.status();
  std::set<std::string> ops;
  bool in_section = false;
  for (std::string_view line : StrSplit(*text, '\n')) {
    if (StartsWith(line, "## ")) {
      in_section = StartsWith(line, "## Must-support");
      continue;
    }
    if (!in_section || !StartsWith(line, "| ")) continue;
    auto cells = StrSplit(line, '|');
    if (cells.size() < 2) continue;
    std::string op(cells[1]);
    op.erase(0, op.find_first_not_of(' '));
    op.erase(op.find_last_not_of(' ') + 1);
    if (op.empty() || op == "op" || op.find('-') != std::string::npos) continue;
    ops.insert(op);
  }
  if (ops.empty()) return absl::InvalidArgumentError(StrCat(coverage_md, ": no must-support table"));
  return ops;
}

}  // namespace tunefarm::conformance
