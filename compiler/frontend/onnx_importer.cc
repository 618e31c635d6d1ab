#include "compiler/frontend/onnx_importer.h"

#include "compiler/frontend/importer.h"

#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <sstream>
#include <algorithm>
#include <cstring>

#include "common/file_read.h"
#include "common/strings.h"
#include "compiler/frontend/onnx_tensor.h"
#include "compiler/graph/const_eval.h"
#include "compiler/graph/node_interpreter.h"
#include "compiler/graph/onnx_converter.h"
#include "compiler/graph/op_registry.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {

absl::Status NodeError(const onnx::NodeProto& n, const std::string& why) {
  std::string label = n.name().empty() && n.output_size() > 0 ? StrCat("node producing '", n.output(0), "'")
                                                               : StrCat("node '", n.name(), "'");
  return absl::InvalidArgumentError(StrCat(label, " (op ", n.op_type(), "): ", why));
}

namespace {

absl::StatusOr<AttrValue> AttrFromOnnx(const onnx::AttributeProto& a) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: return AttrValue(static_cast<int64_t>(a.i()));
    case A::FLOAT: return AttrValue(static_cast<double>(a.f()));
    case A::STRING: return AttrValue(a.s());
    case A::INTS: return AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case A::FLOATS: return AttrValue(std::vector<double>(a.floats().begin(), a.floats().end()));
    case A::STRINGS: return AttrValue(std::vector<std::string>(a.strings().begin(), a.strings().end()));
    case A::TENSOR: {
      auto t = HostTensorFromOnnx(a.t());
      if (!t.ok()) return t.status();
      return AttrValue(std::move(*t));
    }
    default: return absl::UnimplementedError(StrCat("attribute '", a.name(), "' has an unsupported type"));
  }
}

}  // namespace


absl::Status Importer::AddGraphInput(const onnx::ValueInfoProto& v) {
  if (values_.count(v.name())) return absl::OkStatus();  // an initializer listed as input (IR < 4)
  runtime_inputs_.insert(v.name());
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(StrCat("graph input '", v.name(), "': ", why));
  };
  if (!v.type().has_tensor_type()) return fail("not a tensor");
  const auto& tt = v.type().tensor_type();
  auto dtype = DTypeFromOnnx(tt.elem_type());
  if (!dtype.ok()) return fail(std::string(dtype.status().message()));
  std::vector<int64_t> shape;
  // The words a user can act on: the CLI's flag (ImportOptions::input_shapes underneath).
  const std::string give_shape = StrCat("give its shape with --input-shape ", v.name(), "=D,D,...");
  if (auto it = options_.input_shapes.find(v.name()); it != options_.input_shapes.end()) {
    shape = it->second;
    // A given shape fills in the model's symbolic dimensions; it may not contradict the rank or
    // a fixed dimension the model declares.
    if (options_.strict_input_shapes && tt.has_shape()) {
      const auto& dims = tt.shape().dim();
      if (static_cast<size_t>(dims.size()) != shape.size()) {
        return fail(StrCat("the model declares rank ", dims.size(), ", --input-shape gives ", shape.size(),
                           " dimensions"));
      }
      for (int i = 0; i < dims.size(); ++i) {
        if (dims[i].has_dim_value() && dims[i].dim_value() > 0 && dims[i].dim_value() != shape[i]) {
          return fail(StrCat("dimension ", i, " is fixed at ", dims[i].dim_value(), " by the model, --input-shape gives ",
                             shape[i]));
        }
      }
    }
  } else {
    if (!tt.has_shape()) return fail(StrCat("the model gives no shape; ", give_shape));
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      if (d.has_dim_value() && d.dim_value() < 0) {
        return fail(StrCat("dimension ", i, " is ", d.dim_value(), " in the model, not a size; ", give_shape));
      }
      if (!d.has_dim_value()) {
        const std::string what = d.dim_param().empty() ? "unnamed" : StrCat("'", d.dim_param(), "'");
        return fail(StrCat("dimension ", i, " is ", what, ", not a fixed size; ", give_shape));
      }
      shape.push_back(d.dim_value());
    }
  }
  auto e = graph_.AddInput(v.name(), TensorType{*dtype, shape});
  if (!e.ok()) return e.status();
  values_[v.name()] = Value{TensorType{*dtype, shape}, *e, nullptr};
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> Importer::TopologicalOrder(const onnx::GraphProto& g) {
  std::map<std::string, int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string& out : g.node(i).output()) {
      if (out.empty()) continue;
      if (values_.count(out) || producer.count(out))
        return NodeError(g.node(i), StrCat("output '", out, "' is defined twice"));
      producer[out] = i;
    }
  std::vector<int> pending(g.node_size(), 0);
  std::vector<std::vector<int>> consumers(g.node_size());
  for (int i = 0; i < g.node_size(); ++i) {
    // A node with subgraphs (If) also depends on the outer values they read.
    std::vector<std::string> reads(g.node(i).input().begin(), g.node(i).input().end());
    for (const auto& a : g.node(i).attribute())
      if (a.has_g())
        for (const std::string& inner : OuterReads(a.g())) reads.push_back(inner);
    for (const std::string& in : reads) {
      if (in.empty() || values_.count(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end()) return NodeError(g.node(i), StrCat("undefined input name '", in, "'"));
      ++pending[i];
      consumers[it->second].push_back(i);
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;  // file order among ready nodes
  for (int i = 0; i < g.node_size(); ++i)
    if (pending[i] == 0) ready.push(i);
  std::vector<int> order;
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int c : consumers[i])
      if (--pending[c] == 0) ready.push(c);
  }
  if (static_cast<int>(order.size()) != g.node_size())
    for (int i = 0; i < g.node_size(); ++i)
      if (pending[i] > 0) return NodeError(g.node(i), "the graph has a cycle through this node");
  return order;
}

namespace {

void CollectNames(const onnx::GraphProto& g, std::set<std::string>* names) {
  for (const auto& v : g.input()) names->insert(v.name());
  for (const auto& t : g.initializer()) names->insert(t.name());
  for (const auto& n : g.node()) {
    for (const std::string& out : n.output()) names->insert(out);
    for (const auto& a : n.attribute())
      if (a.has_g()) CollectNames(a.g(), names);
  }
}

}  // namespace

absl::StatusOr<graph::Graph> Importer::Run(const onnx::GraphProto& g) {
  CollectNames(g, &model_names_);
  for (const auto& init : g.initializer()) {
    auto t = HostTensorFromOnnx(init);
    if (!t.ok()) return absl::Status(t.status().code(), StrCat("initializer: ", std::string(t.status().message())));
    if (init.name().empty()) return absl::InvalidArgumentError("an initializer has no name");
    BindConst(init.name(), std::move(*t));
  }
  for (const auto& [name, value] : options_.constant_inputs) {
    // A user's value (--bind) is for a graph input of the model, of its declared type.
    if (options_.strict_input_shapes) {
      const onnx::ValueInfoProto* input = nullptr;
      for (const auto& in : g.input())
        if (in.name() == name && !values_.count(name)) input = &in;
      if (input == nullptr) {
        std::vector<std::string> names;
        for (const auto& in : g.input())
          if (!values_.count(in.name())) names.push_back(in.name());
        return absl::InvalidArgumentError(StrCat("a value is bound to '", name,
                                                 "', which is not an input of the model (inputs: ",
                                                 StrJoin(names, ", "), ")"));
      }
      if (absl::Status s = CheckBoundInput(*input, value); !s.ok()) return s;
    }
  }
  for (const auto& [name, value] : options_.constant_inputs) BindConst(name, value);
  for (const auto& in : g.input())
    if (absl::Status s = AddGraphInput(in); !s.ok()) return s;
  // A shape for an input the graph does not have is a typo, not something to ignore.
  if (options_.strict_input_shapes) {
    std::vector<std::string> input_names;  // the graph inputs that are not initializers
    for (const auto& in : g.input())
      if (values_.at(in.name()).constant == nullptr) input_names.push_back(in.name());
    for (const auto& [name, shape] : options_.input_shapes) {
      if (std::find(input_names.begin(), input_names.end(), name) == input_names.end()) {
        return absl::InvalidArgumentError(StrCat("a shape is given for '", name,
                                                 "', which is not an input of the model (inputs: ",
                                                 StrJoin(input_names, ", "), ")"));
      }
    }
  }
  if (absl::Status s = ConvertNodes(g); !s.ok()) return s;
  for (const auto& out : g.output()) {
    auto it = values_.find(out.name());
    if (it == values_.end()) return absl::InvalidArgumentError(StrCat("graph output '", out.name(), "' is undefined"));
    auto e = Materialize(out.name(), &it->second);
    if (!e.ok()) return e.status();
    graph_.AddOutput(out.name(), *e);
  }
  if (absl::Status s = graph_.Verify(); !s.ok()) return s;
  return std::move(graph_);
}

void Importer::BindConst(const std::string& name, HostTensor t) {
  TensorType type{t.dtype, t.shape};
  values_[name] = Value{type, std::nullopt, std::make_shared<const HostTensor>(std::move(t))};
}

absl::StatusOr<NodeEntry> Importer::Materialize(const std::string& name, Value* v) {
  if (v->entry) return *v->entry;
  auto e = graph_.AddParam(graph_.UniqueName(name), *v->constant);
  if (!e.ok()) return e.status();
  v->entry = *e;
  return *e;
}

absl::Status Importer::CheckBoundInput(const onnx::ValueInfoProto& v, const HostTensor& value) const {
  const std::string where = StrCat("--bind ", v.name(), ": ");
  if (!v.type().has_tensor_type()) return absl::InvalidArgumentError(StrCat(where, "the input is not a tensor"));
  const auto& tt = v.type().tensor_type();
  absl::StatusOr<te::DType> declared = DTypeFromOnnx(tt.elem_type());
  if (declared.ok() && *declared != value.dtype) {
    return absl::InvalidArgumentError(StrCat(where, "the model declares ", te::DTypeName(*declared), ", the file holds ",
                                             te::DTypeName(value.dtype)));
  }
  if (!tt.has_shape()) return absl::OkStatus();
  const auto& dims = tt.shape().dim();
  bool fits = static_cast<size_t>(dims.size()) == value.shape.size();
  for (int i = 0; fits && i < dims.size(); ++i)
    fits = !dims[i].has_dim_value() || dims[i].dim_value() <= 0 || dims[i].dim_value() == value.shape[i];
  if (!fits) {
    std::vector<std::string> declared_dims;
    for (const auto& d : dims)
      declared_dims.push_back(d.has_dim_value() ? std::to_string(d.dim_value()) : d.dim_param().empty() ? "?" : d.dim_param());
    return absl::InvalidArgumentError(StrCat(where, "the model declares shape [", StrJoin(declared_dims, ","),
                                             "], the file holds ", graph::ShapeToString(value.shape)));
  }
  return absl::OkStatus();
}

std::string Importer::SuggestBind(const std::string& name) const {
  if (runtime_inputs_.count(name))
    return StrCat("; it is the graph input '", name, "': give its value at compile time with --bind ", name,
                  "=FILE (.npy or .pb)");
  // Computed from graph inputs (a shape operand derived from an input's value): name them all.
  auto it = values_.find(name);
  if (it == values_.end() || !it->second.entry) return "";
  std::set<std::string> inputs;
  std::set<int> seen;
  std::vector<int> stack = {it->second.entry->node};
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    if (!seen.insert(id).second) continue;
    const graph::Node& node = graph_.node(id);
    if (node.IsInput()) inputs.insert(node.name);
    for (const NodeEntry& e : node.inputs) stack.push_back(e.node);
  }
  if (inputs.empty()) return "";
  std::vector<std::string> binds;
  for (const std::string& input : inputs) binds.push_back(StrCat("--bind ", input, "=FILE"));
  return StrCat("; it is computed from the graph input", inputs.size() > 1 ? "s '" : " '", StrJoin(inputs, "', '"),
                "': give ", inputs.size() > 1 ? "their values" : "its value", " at compile time with ",
                StrJoin(binds, " "), " (.npy or .pb)");
}

absl::StatusOr<std::vector<int64_t>> Importer::ConstInts(const onnx::NodeProto& n, int i, const char* what) {
  const Value& v = values_.at(n.input(i));
  if (!v.constant) {
    return NodeError(n, StrCat(what, " ('", n.input(i), "') must be a compile-time constant", SuggestBind(n.input(i))));
  }
  if (!te::IsInt(v.constant->dtype)) return NodeError(n, StrCat(what, " must be an integer tensor"));
  return v.constant->ToInt64s();
}

absl::StatusOr<std::vector<double>> Importer::ConstNumbers(const onnx::NodeProto& n, int i, const char* what) {
  const Value& v = values_.at(n.input(i));
  if (!v.constant) {
    return NodeError(n, StrCat(what, " ('", n.input(i), "') must be a compile-time constant", SuggestBind(n.input(i))));
  }
  std::vector<double> numbers;
  for (int64_t k = 0; k < v.constant->NumElements(); ++k) numbers.push_back(v.constant->GetDouble(k));
  return numbers;
}

absl::StatusOr<double> Importer::ConstScalar(const onnx::NodeProto& n, int i, const char* what) {
  const Value& v = values_.at(n.input(i));
  if (!v.constant || v.constant->NumElements() != 1)
    return NodeError(n, StrCat(what, " ('", n.input(i), "') must be a compile-time constant scalar", SuggestBind(n.input(i))));
  return v.constant->GetDouble(0);
}

absl::StatusOr<Attrs> Importer::CopyAttrs(const onnx::NodeProto& n) {
  Attrs attrs;
  for (const auto& a : n.attribute()) {
    auto v = AttrFromOnnx(a);
    if (!v.ok()) return NodeError(n, std::string(v.status().message()));
    attrs.Set(a.name(), std::move(*v));
  }
  return attrs;
}

absl::Status Importer::Emit(const onnx::NodeProto& n, const std::string& name, const std::string& op,
                            const std::vector<std::string>& inputs, Attrs attrs,
                            const std::vector<std::string>& outputs) {
  if (graph::OpRegistry::Global().Find(op) == nullptr)
    return NodeError(n, StrCat("unsupported op (opset ", opset_, ")"));
  graph::Node node;
  node.name = name;
  node.op = op;
  node.attrs = attrs;
  std::vector<TensorType> in_types;
  bool all_const = true;
  for (const std::string& in : inputs) {
    const Value& v = values_.at(in);
    in_types.push_back(v.type);
    all_const = all_const && v.constant != nullptr;
  }
  if (absl::Status s = graph::PrepareNode(&node, in_types); !s.ok()) return s;
  int used_outputs = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].empty()) continue;
    if (i >= node.outputs.size()) return NodeError(n, StrCat("output ", i, " ('", outputs[i], "') is not supported"));
    ++used_outputs;
  }
  if (used_outputs == 0) return absl::OkStatus();  // nothing reads it
  if (all_const) {
    std::vector<const HostTensor*> args;
    for (const std::string& in : inputs) args.push_back(values_.at(in).constant.get());
    node.inputs.assign(inputs.size(), NodeEntry{});  // not in the graph: the evaluator counts them
    // An op without inputs (Range, EyeLike) can only be a constant, whatever its size.
    auto folded = EvaluateConstant(node, args, inputs.empty() ? INT64_MAX : graph::kMaxFoldElements);
    if (!folded.ok()) return folded.status();
    if (folded->has_value()) {
      for (size_t i = 0; i < outputs.size(); ++i)
        if (!outputs[i].empty()) BindConst(outputs[i], std::move((**folded)[i]));
      return absl::OkStatus();
    }
    if (inputs.empty()) {
      int64_t elements = 0;
      for (const TensorType& t : node.outputs)
        if (__builtin_add_overflow(elements, t.NumElements(), &elements)) elements = INT64_MAX;
      if (elements > graph::kMaxInterpretedWork)
        return NodeError(n, StrCat("cannot compute ", op, " at import: its output of ", elements,
                                   " elements is larger than an import-time constant may be (",
                                   graph::kMaxInterpretedWork, ")"));
      return NodeError(n, StrCat("cannot compute ", op, " at import"));
    }
  }
  std::vector<NodeEntry> entries;
  for (const std::string& in : inputs) {
    auto e = Materialize(in, &values_.at(in));  // a constant read as data becomes a param
    if (!e.ok()) return e.status();
    entries.push_back(*e);
  }
  auto outs = graph_.AddNode(op, node.name, entries, std::move(attrs));
  if (!outs.ok()) return outs.status();
  for (size_t i = 0; i < outs->size() && i < outputs.size(); ++i)
    if (!outputs[i].empty()) values_[outputs[i]] = Value{graph_.type((*outs)[i]), (*outs)[i], nullptr};
  return absl::OkStatus();
}

// One ONNX node as the op families' converters see it (graph::OnnxNode). Not in an anonymous
// namespace: Importer befriends it.
class ImporterNode : public graph::OnnxNode {
 public:
  ImporterNode(Importer& importer, const onnx::NodeProto& n, Attrs attrs)
      : importer_(importer), n_(n), attrs_(std::move(attrs)) {}

  const std::string& op() const override { return n_.op_type(); }
  int opset() const override { return importer_.opset_; }
  Attrs& attrs() override { return attrs_; }
  int num_inputs() const override { return n_.input_size(); }
  const std::string& input(int i) const override { return n_.input(i); }
  int num_outputs() const override { return n_.output_size(); }
  const std::string& output(int i) const override { return n_.output(i); }
  const TensorType& Type(const std::string& value) const override { return importer_.values_.at(value).type; }
  const HostTensor* Constant(const std::string& value) const override {
    return importer_.values_.at(value).constant.get();
  }
  absl::StatusOr<std::vector<int64_t>> ConstInts(int i, const char* what) const override {
    return importer_.ConstInts(n_, i, what);
  }
  absl::StatusOr<double> ConstScalar(int i, const char* what) const override {
    return importer_.ConstScalar(n_, i, what);
  }
  absl::StatusOr<std::vector<double>> ConstNumbers(int i, const char* what) const override {
    return importer_.ConstNumbers(n_, i, what);
  }
  absl::StatusOr<te::DType> DTypeFromOnnxCode(int64_t code) const override {
    return frontend::DTypeFromOnnx(static_cast<int32_t>(code));
  }
  absl::Status Emit(const std::string& op, const std::vector<std::string>& inputs, Attrs attrs,
                    const std::vector<std::string>& outputs, const std::string& name) override {
    std::string node_name = name;
    if (node_name.empty()) {
      node_name = !n_.name().empty() ? n_.name()
                  : outputs.empty()  ? importer_.graph_.UniqueName(op)
                                     : importer_.graph_.UniqueName(StrCat(op, "_", outputs[0]));
    }
    return importer_.Emit(n_, node_name, op, inputs, std::move(attrs), outputs);
  }
  void Alias(const std::string& value, const std::string& existing) override {
    importer_.values_[value] = importer_.values_.at(existing);
  }
  void BindConstant(const std::string& value, HostTensor data) override { importer_.BindConst(value, std::move(data)); }
  std::string UniqueName(const std::string& hint) override {
    std::string name = importer_.graph_.UniqueName(hint);
    // Also unique among the model's value names, which are not graph node names.
    for (int k = 1; importer_.values_.count(name) || importer_.model_names_.count(name); ++k)
      name = importer_.graph_.UniqueName(StrCat(hint, "_", k));
    return name;
  }
  absl::Status Error(const std::string& why) const override { return NodeError(n_, why); }

 private:
  Importer& importer_;
  const onnx::NodeProto& n_;
  Attrs attrs_;
};

absl::Status Importer::ConvertNodes(const onnx::GraphProto& g) {
  auto order = TopologicalOrder(g);
  if (!order.ok()) return order.status();
  for (int i : *order) {
    const onnx::NodeProto& n = g.node(i);
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      return NodeError(n, StrCat("unsupported op: domain '", n.domain(), "' is not supported"));
    if (absl::Status s = Convert(n); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Importer::Convert(const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty() && !values_.count(n.input(i)))
      return NodeError(n, StrCat("undefined input name '", n.input(i), "'"));
  if (n.output_size() == 0) return NodeError(n, "has no outputs");
  if (op == "If") return ConvertIf(n);
  if (op == "Loop") return ConvertLoop(n);
  if (op == "Scan") return ConvertScan(n);
  const graph::OpRegistry& registry = graph::OpRegistry::Global();
  const graph::OnnxConverter* converter = registry.FindOnnx(op, opset_);
  if (converter == nullptr && registry.Find(op) == nullptr)
    return NodeError(n, StrCat("unsupported op (opset ", opset_, ")"));
  // Older than its first converter: the same-named graph op would read it with the wrong
  // meaning. (Above a converter's range, as for Softmax 13, the graph op is the right reading.)
  if (const int first = registry.FirstOnnxOpset(op); converter == nullptr && opset_ < first)
    return NodeError(n, StrCat("unsupported before opset ", first, " (the model's is ", opset_, ")"));
  // Every op but Constant reads input 0 (fuzz: an AveragePool with its inputs deleted).
  if (op != "Constant" && (n.input_size() == 0 || n.input(0).empty())) return NodeError(n, "missing input 0");
  auto attrs = CopyAttrs(n);
  if (!attrs.ok()) return attrs.status();
  ImporterNode node(*this, n, std::move(*attrs));
  if (converter != nullptr) return converter->convert(node);
  // The generic path: the graph op of the same name, every input data, every attribute copied.
  return node.EmitAsIs(op, node.attrs());
}

namespace {

// Opsets below kMinOpset: an op whose definition did not change between the model's opset and
// opset 7 means the same thing in both, so such a model imports as if it were opset 7. Each
// entry is the opset from which the op's definition equals the one in force at opset 7 (from
// the ONNX operator changelog; conservative: ops whose opset 6 version only dropped
// `consumed_inputs`, such as Relu, are left out).
const std::map<std::string, int>& OpsUnchangedUpToOpset7() {
  static const auto* kOps = new std::map<std::string, int>{
      {"GlobalAveragePool", 1}, {"GlobalMaxPool", 1}, {"Transpose", 1}, {"Flatten", 1},
      {"MatMul", 1},            {"Identity", 1},      {"Softmax", 1},   {"LogSoftmax", 1},
      {"Conv", 1},              {"MaxPool", 1},       {"Concat", 4},    {"Reshape", 5},
      // Version 1 until 11: the reductions and ArgMax/ArgMin; 1, 6, 22: InstanceNormalization.
      {"ReduceL1", 1},          {"ReduceSum", 1},         {"ReduceMean", 1},    {"ReduceMax", 1}, {"ReduceMin", 1},
      {"ReduceProd", 1},        {"ReduceL2", 1},      {"ReduceSumSquare", 1}, {"ReduceLogSum", 1},
      {"ReduceLogSumExp", 1},   {"ArgMax", 1},        {"ArgMin", 1},    {"InstanceNormalization", 6},
      // Version 6 dropped consumed_inputs; unchanged until 22. Not has a single version.
      {"Elu", 6},               {"HardSigmoid", 6},   {"Selu", 6},      {"Not", 1},
      // One version until 22 (types added).
      {"Softplus", 1},          {"Softsign", 1}};
  return *kOps;
}

// OK when every node of a model at `opset` < kMinOpset is in OpsUnchangedUpToOpset7.
absl::Status CheckOldOpset(const onnx::GraphProto& g, int opset, const std::string& label) {
  for (const onnx::NodeProto& n : g.node()) {
    auto it = OpsUnchangedUpToOpset7().find(n.op_type());
    bool same = (n.domain().empty() || n.domain() == "ai.onnx") && it != OpsUnchangedUpToOpset7().end() &&
                opset >= it->second;
    if (!same)
      return absl::UnimplementedError(StrCat(label, ": unsupported opset ", opset, " (supported ", kMinOpset, "..",
                                             kMaxOpset, "): op ", n.op_type(), " is not known to be unchanged from opset ",
                                             opset, " to ", kMinOpset));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<graph::Graph> ImportOnnxBytes(const std::string& bytes, const ImportOptions& options,
                                             const std::string& label) {
  auto fail = [&](const std::string& why) { return absl::InvalidArgumentError(StrCat(label, ": ", why)); };
  onnx::ModelProto model;
  if (bytes.empty()) return fail("empty file");
  if (!model.ParseFromString(bytes)) return fail("not a valid ONNX model (protobuf parse failed; truncated or corrupt)");
  if (!model.has_graph() || model.graph().node_size() == 0) return fail("the model has no graph nodes");
  int opset = -1;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
  if (opset < 0) {
    if (model.opset_import_size() == 0 && model.ir_version() < 3) opset = 1;
    else return fail("no default-domain opset_import");
  }
  if (opset < kMinOpset && opset >= 1) {
    if (absl::Status s = CheckOldOpset(model.graph(), opset, label); !s.ok()) return s;
  } else if (opset < kMinOpset || opset > kMaxOpset)
    return absl::UnimplementedError(
        StrCat(label, ": unsupported opset ", opset, " (supported ", kMinOpset, "..", kMaxOpset, ")"));
  Importer importer(options, opset);
  auto g = importer.Run(model.graph());
  if (!g.ok()) return absl::Status(g.status().code(), StrCat(label, ": ", std::string(g.status().message())));
  return g;
}

absl::StatusOr<graph::Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options) {
  // Protobuf cannot parse a message over 2 GiB; a larger file is refused before it is read.
  constexpr uint64_t kMaxOnnxBytes = (uint64_t{1} << 31) - 1;
  absl::StatusOr<std::string> bytes = ReadRegularFile(path, kMaxOnnxBytes, "model");
  if (!bytes.ok()) return bytes.status();
  return ImportOnnxBytes(*bytes, options, path);
}

}  // namespace tunefarm::frontend
