#include "compiler/graph/graph.h"

#include "common/strings.h"
#include "compiler/graph/op_registry.h"

namespace tunefarm::graph {

int64_t TensorType::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;  // saturates: callers compare it to limits
  return n;
}

std::string TensorType::ToString() const { return StrCat(te::DTypeName(dtype), ShapeToString(shape)); }

absl::StatusOr<int> Graph::Append(Node node) {
  if (node.name.empty()) node.name = UniqueName(node.op);
  if (HasName(node.name)) return absl::AlreadyExistsError(StrCat("node name '", node.name, "' is used twice"));
  int id = static_cast<int>(nodes_.size());
  names_[node.name] = id;
  nodes_.push_back(std::move(node));
  return id;
}

std::string Graph::UniqueName(const std::string& base) const {
  if (!HasName(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = StrCat(base, "_", i);
    if (!HasName(name)) return name;
  }
}

absl::StatusOr<NodeEntry> Graph::AddInput(const std::string& name, TensorType type) {
  if (auto n = CheckedNumElements(type.shape); !n.ok())
    return absl::InvalidArgumentError(StrCat("input '", name, "': ", std::string(n.status().message())));
  Node node;
  node.name = name;
  node.op = kInputOp;
  node.outputs.push_back(std::move(type));
  auto id = Append(std::move(node));
  if (!id.ok()) return id.status();
  return NodeEntry{*id, 0};
}

absl::StatusOr<NodeEntry> Graph::AddParam(const std::string& name, HostTensor value) {
  Node node;
  node.name = name;
  node.op = kParamOp;
  node.outputs.push_back(TensorType{value.dtype, value.shape});
  auto id = Append(std::move(node));
  if (!id.ok()) return id.status();
  params_[nodes_[*id].name] = std::move(value);
  return NodeEntry{*id, 0};
}

absl::Status PrepareNode(Node* node, const std::vector<TensorType>& in_types) {
  auto fail = [&](std::string_view reason) {
    return absl::InvalidArgumentError(StrCat("node '", node->name, "' (op ", node->op, "): ", reason));
  };
  const OpSchema* schema = OpRegistry::Global().Find(node->op);
  if (schema == nullptr) return fail("unknown op");
  int n = static_cast<int>(in_types.size());
  if (n < schema->min_inputs || (schema->max_inputs >= 0 && n > schema->max_inputs))
    return fail(StrCat("takes ", schema->min_inputs, "..",
                       schema->max_inputs < 0 ? std::string("n") : std::to_string(schema->max_inputs), " inputs, got ", n));
  for (const auto& [attr_name, value] : node->attrs.values()) {
    const AttrSpec* spec = nullptr;
    for (const AttrSpec& s : schema->attrs)
      if (s.name == attr_name) spec = &s;
    if (spec == nullptr) return fail(StrCat("unsupported attribute '", attr_name, "'"));
    if (spec->kind != KindOf(value))
      return fail(StrCat("attribute '", attr_name, "' is ", AttrKindName(KindOf(value)), ", expected ",
                         AttrKindName(spec->kind)));
  }
  for (const AttrSpec& spec : schema->attrs) {
    if (node->attrs.Has(spec.name)) continue;
    if (!spec.default_value) return fail(StrCat("missing required attribute '", spec.name, "'"));
    node->attrs.Set(spec.name, *spec.default_value);
  }
  std::vector<TensorType> out_types;
  if (absl::Status s = schema->infer(*node, in_types, &out_types); !s.ok()) return fail(std::string(s.message()));
  if (static_cast<int>(out_types.size()) != schema->num_outputs) return fail("inference gave the wrong output count");
  for (const TensorType& t : out_types)
    if (auto count = CheckedNumElements(t.shape, te::DTypeBytes(t.dtype)); !count.ok())
      return fail(StrCat("output shape: ", std::string(count.status().message())));
  node->outputs = std::move(out_types);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NodeEntry>> Graph::AddNode(const std::string& op, const std::string& name,
                                                      std::vector<NodeEntry> inputs, Attrs attrs) {
  Node node;
  node.name = name.empty() ? UniqueName(op) : name;
  node.op = op;
  std::vector<TensorType> in_types;
  for (const NodeEntry& e : inputs) {
    if (e.node < 0 || e.node >= static_cast<int>(nodes_.size()) || e.index < 0 ||
        e.index >= static_cast<int>(nodes_[e.node].outputs.size()))
      return absl::InvalidArgumentError(
          StrCat("node '", node.name, "' (op ", op, "): input refers to a missing value %", e.node, ":", e.index));
    in_types.push_back(type(e));
  }
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  if (absl::Status s = PrepareNode(&node, in_types); !s.ok()) return s;
  int num_outputs = static_cast<int>(node.outputs.size());
  auto id = Append(std::move(node));
  if (!id.ok()) return id.status();
  std::vector<NodeEntry> outs;
  for (int i = 0; i < num_outputs; ++i) outs.push_back({*id, i});
  return outs;
}

void Graph::AddOutput(const std::string& name, NodeEntry entry) {
  outputs_.push_back(entry);
  output_names_.push_back(name);
}

std::map<std::string, int> Graph::OpCounts() const {
  std::map<std::string, int> counts;
  for (const Node& n : nodes_)
    if (!n.IsInput() && !n.IsParam()) ++counts[n.op];
  return counts;
}

int64_t Graph::NumParamElements() const {
  int64_t n = 0;
  for (const auto& [name, t] : params_) n += t.NumElements();
  return n;
}

absl::Status Graph::Verify() const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.outputs.empty()) return absl::InternalError(StrCat("node '", n.name, "' has no typed outputs"));
    for (const NodeEntry& e : n.inputs)
      if (e.node < 0 || e.node >= static_cast<int>(i) || e.index >= static_cast<int>(nodes_[e.node].outputs.size()))
        return absl::InternalError(StrCat("node '", n.name, "' reads a value that is not defined before it"));
    if (n.IsParam()) {
      auto it = params_.find(n.name);
      if (it == params_.end()) return absl::InternalError(StrCat("param '", n.name, "' has no data"));
      const HostTensor& t = it->second;
      if (TensorType{t.dtype, t.shape} != n.outputs[0] ||
          static_cast<int64_t>(t.bytes.size()) != t.NumElements() * te::DTypeBytes(t.dtype))
        return absl::InternalError(StrCat("param '", n.name, "' data does not match its type"));
    }
  }
  for (NodeEntry e : outputs_)
    if (e.node < 0 || e.node >= static_cast<int>(nodes_.size()))
      return absl::InternalError("a graph output refers to a missing node");
  return absl::OkStatus();
}

std::string Graph::Dump() const {
  std::string out;
  auto ref = [](NodeEntry e) { return e.index == 0 ? StrCat("%", e.node) : StrCat("%", e.node, ":", e.index); };
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    std::vector<std::string> ins, outs;
    for (NodeEntry e : n.inputs) ins.push_back(ref(e));
    for (const TensorType& t : n.outputs) outs.push_back(t.ToString());
    StrAppend(&out, "%", i, " = ", n.op, "(", StrJoin(ins, ", "), ")");
    if (!n.attrs.values().empty()) StrAppend(&out, " {", n.attrs.ToString(), "}");
    StrAppend(&out, " -> ", StrJoin(outs, ", "), "  # ", n.name, "\n");
  }
  std::vector<std::string> outs;
  for (size_t i = 0; i < outputs_.size(); ++i) outs.push_back(StrCat(output_names_[i], "=", ref(outputs_[i])));
  StrAppend(&out, "outputs: ", StrJoin(outs, ", "), "\n");
  return out;
}

}  // namespace tunefarm::graph
