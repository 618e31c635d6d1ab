// Control flow: ONNX If, imported by inlining its branches into the one static graph. A cond
// known at compile time (a constant, or a graph input given with --bind) keeps only its branch;
// a runtime cond computes both branches and picks each output with Where, which needs the two
// branches to agree on every output's type. Loop and Scan are unrolled (onnx_loops.cc), through
// the same subgraph inlining.
#include <functional>

#include "common/strings.h"
#include "compiler/frontend/importer.h"
#include "compiler/frontend/onnx_tensor.h"

namespace tunefarm::frontend {

std::set<std::string> OuterReads(const onnx::GraphProto& g) {
  std::set<std::string> defined, reads;
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node())
    for (const std::string& out : n.output()) defined.insert(out);
  auto read = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name)) reads.insert(name);
  };
  for (const auto& n : g.node()) {
    for (const std::string& in : n.input()) read(in);
    for (const auto& a : n.attribute())
      if (a.has_g())
        for (const std::string& inner : OuterReads(a.g())) read(inner);
  }
  for (const auto& v : g.output()) read(v.name());
  return reads;
}

std::string Importer::FreshValueName(const std::string& base) {
  std::string name = base;
  for (int k = 1; values_.count(name) || model_names_.count(name); ++k) name = StrCat(base, "_", k);
  model_names_.insert(name);
  return name;
}

namespace {

// Renames, in `g` and the subgraphs nested in it, every read of a name in `renamed` that `g`
// does not define itself (an inner definition shadows the outer one).
void RenameReads(onnx::GraphProto* g, const std::map<std::string, std::string>& renamed) {
  std::set<std::string> own;
  for (const auto& v : g->input()) own.insert(v.name());
  for (const auto& t : g->initializer()) own.insert(t.name());
  for (const auto& n : g->node())
    for (const std::string& out : n.output()) own.insert(out);
  std::map<std::string, std::string> visible;
  for (const auto& [from, to] : renamed)
    if (!own.count(from)) visible[from] = to;
  if (visible.empty()) return;
  for (auto& n : *g->mutable_node()) {
    for (auto& in : *n.mutable_input())
      if (auto it = visible.find(in); it != visible.end()) in = it->second;
    for (auto& a : *n.mutable_attribute())
      if (a.has_g()) RenameReads(a.mutable_g(), visible);
  }
  for (auto& v : *g->mutable_output())
    if (auto it = visible.find(v.name()); it != visible.end()) v.set_name(it->second);
}

}  // namespace

absl::StatusOr<std::vector<std::string>> Importer::InlineSubgraph(const onnx::NodeProto& n, const onnx::GraphProto& g,
                                                                  const std::string& tag,
                                                                  const std::vector<std::string>& inputs) {
  if (g.input_size() != static_cast<int>(inputs.size()))
    return NodeError(n, StrCat("the ", tag, " subgraph takes ", g.input_size(), " inputs, the node gives it ",
                               inputs.size()));
  const std::string stem = StrCat(n.output_size() > 0 && !n.output(0).empty() ? n.output(0) : n.name(), "/", tag, "/");
  // Every value the subgraph defines gets a name of its own in the enclosing graph; its formal
  // inputs read the values given for them.
  std::map<std::string, std::string> renamed;
  for (int i = 0; i < g.input_size(); ++i) renamed[g.input(i).name()] = inputs[i];
  for (const auto& t : g.initializer()) renamed[t.name()] = FreshValueName(stem + t.name());
  for (const auto& node : g.node())
    for (const std::string& out : node.output())
      if (!out.empty()) renamed[out] = FreshValueName(stem + out);
  onnx::GraphProto body = g;
  for (auto& node : *body.mutable_node())
    for (auto& out : *node.mutable_output())
      if (!out.empty()) out = renamed.at(out);
  body.clear_initializer();
  body.clear_input();
  RenameReads(&body, renamed);
  for (const auto& t : g.initializer()) {
    auto value = HostTensorFromOnnx(t);
    if (!value.ok()) return NodeError(n, StrCat(tag, " initializer '", t.name(), "': ", std::string(value.status().message())));
    BindConst(renamed.at(t.name()), std::move(*value));
  }
  if (absl::Status s = ConvertNodes(body); !s.ok()) return s;
  std::vector<std::string> outputs;
  for (const auto& v : body.output()) {
    if (!values_.count(v.name())) return NodeError(n, StrCat("the ", tag, " subgraph's output '", v.name(), "' is undefined"));
    outputs.push_back(v.name());
  }
  return outputs;
}

absl::Status Importer::ConvertIf(const onnx::NodeProto& n) {
  if (n.input_size() < 1 || n.input(0).empty()) return NodeError(n, "missing input 0 (cond)");
  const onnx::GraphProto *then_branch = nullptr, *else_branch = nullptr;
  for (const auto& a : n.attribute()) {
    if (a.name() == "then_branch" && a.has_g()) then_branch = &a.g();
    if (a.name() == "else_branch" && a.has_g()) else_branch = &a.g();
  }
  if (then_branch == nullptr || else_branch == nullptr) return NodeError(n, "needs then_branch and else_branch graphs");
  const std::string& cond_name = n.input(0);
  const Value cond = values_.at(cond_name);
  if (cond.type.dtype != te::DType::kBool || cond.type.NumElements() != 1)
    return NodeError(n, StrCat("cond must be one bool, got ", cond.type.ToString()));
  auto bind_outputs = [&](const std::vector<std::string>& from) -> absl::Status {
    if (static_cast<int>(from.size()) != n.output_size())
      return NodeError(n, StrCat("a branch has ", from.size(), " outputs, the node ", n.output_size()));
    for (int i = 0; i < n.output_size(); ++i)
      if (!n.output(i).empty()) values_[n.output(i)] = values_.at(from[i]);
    return absl::OkStatus();
  };
  if (cond.constant) {
    auto taken = InlineSubgraph(n, cond.constant->GetInt(0) != 0 ? *then_branch : *else_branch,
                                cond.constant->GetInt(0) != 0 ? "then" : "else");
    if (!taken.ok()) return taken.status();
    return bind_outputs(*taken);
  }
  auto then_out = InlineSubgraph(n, *then_branch, "then");
  if (!then_out.ok()) return then_out.status();
  auto else_out = InlineSubgraph(n, *else_branch, "else");
  if (!else_out.ok()) return else_out.status();
  if (then_out->size() != else_out->size() || static_cast<int>(then_out->size()) != n.output_size())
    return NodeError(n, StrCat("the branches have ", then_out->size(), " and ", else_out->size(), " outputs, the node ",
                               n.output_size()));
  // A [1] or [1, 1] cond would raise the rank of scalar outputs through Where: make it a scalar.
  std::string selector = cond_name;
  if (!cond.type.shape.empty()) {
    Attrs scalar;
    scalar.Set("shape", std::vector<int64_t>{});
    selector = FreshValueName(StrCat(cond_name, "/scalar"));
    if (absl::Status s = Emit(n, selector, "Reshape", {cond_name}, std::move(scalar), {selector}); !s.ok()) return s;
  }
  for (int i = 0; i < n.output_size(); ++i) {
    if (n.output(i).empty()) continue;
    const TensorType &a = values_.at((*then_out)[i]).type, &b = values_.at((*else_out)[i]).type;
    if (!(a == b))
      return NodeError(n, StrCat("output ", i, " is ", a.ToString(), " in then_branch and ", b.ToString(),
                                 " in else_branch: with a runtime cond both branches run, so they must agree",
                                 SuggestBind(cond_name)));
    if (absl::Status s = Emit(n, FreshValueName(StrCat(n.output(i), "/select")), "Where",
                              {selector, (*then_out)[i], (*else_out)[i]}, {}, {n.output(i)});
        !s.ok())
      return s;
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::frontend
