#include "compiler/frontend/onnx_importer.h"

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
#include "compiler/graph/const_eval.h"
#include "compiler/frontend/onnx_tensor.h"
#include "compiler/graph/op_registry.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

using graph::Attrs;
using graph::AttrValue;
using graph::HostTensor;
using graph::NodeEntry;
using graph::TensorType;

// A named ONNX value: a graph value, or a constant known at import (materialized as a param
// only when an operator node reads it as data).
struct Value {
  TensorType type;
  std::optional<NodeEntry> entry;
  std::shared_ptr<const HostTensor> constant;
};

absl::Status NodeError(const onnx::NodeProto& n, const std::string& why) {
  std::string label = n.name().empty() && n.output_size() > 0 ? StrCat("node producing '", n.output(0), "'")
                                                               : StrCat("node '", n.name(), "'");
  return absl::InvalidArgumentError(StrCat(label, " (op ", n.op_type(), "): ", why));
}

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

class Importer {
 public:
  Importer(const ImportOptions& options, int opset) : options_(options), opset_(opset) {}

  absl::StatusOr<graph::Graph> Run(const onnx::GraphProto& g);

 private:
  absl::Status AddGraphInput(const onnx::ValueInfoProto& v);
  // A user's compile-time value for graph input `v` (--bind) must fit its declared type.
  absl::Status CheckBoundInput(const onnx::ValueInfoProto& v, const HostTensor& value) const;
  // "; ... --bind" when the operand a converter needs as a constant is a graph input.
  std::string SuggestBind(const std::string& name) const;
  absl::StatusOr<std::vector<int>> TopologicalOrder(const onnx::GraphProto& g);
  absl::Status Convert(const onnx::NodeProto& n);

  // Helpers for converters.
  bool HasInput(const onnx::NodeProto& n, int i) const { return i < n.input_size() && !n.input(i).empty(); }
  const Value& In(const onnx::NodeProto& n, int i) { return values_.at(n.input(i)); }
  absl::StatusOr<std::vector<int64_t>> ConstInts(const onnx::NodeProto& n, int i, const char* what);
  absl::StatusOr<double> ConstScalar(const onnx::NodeProto& n, int i, const char* what);
  absl::StatusOr<Attrs> CopyAttrs(const onnx::NodeProto& n, const std::set<std::string>& drop = {});
  // Folds when every input is constant and the evaluator knows the op; otherwise adds a node.
  absl::Status Emit(const onnx::NodeProto& n, const std::string& op, const std::vector<Value>& inputs, Attrs attrs);
  void BindConst(const std::string& name, HostTensor t);
  absl::StatusOr<NodeEntry> Materialize(const std::string& name, Value* v);
  absl::Status ResolveAutoPad(const onnx::NodeProto& n, const TensorType& x, std::vector<int64_t> kernel,
                              Attrs* attrs);

  const ImportOptions& options_;
  int opset_;
  graph::Graph graph_;
  std::map<std::string, Value> values_;
  std::set<std::string> runtime_inputs_;  // graph inputs that are neither initializers nor bound
};

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
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string& in : g.node(i).input()) {
      if (in.empty() || values_.count(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end()) return NodeError(g.node(i), StrCat("undefined input name '", in, "'"));
      ++pending[i];
      consumers[it->second].push_back(i);
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

absl::StatusOr<graph::Graph> Importer::Run(const onnx::GraphProto& g) {
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
  auto order = TopologicalOrder(g);
  if (!order.ok()) return order.status();
  for (int i : *order) {
    const onnx::NodeProto& n = g.node(i);
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      return NodeError(n, StrCat("unsupported op: domain '", n.domain(), "' is not supported"));
    if (absl::Status s = Convert(n); !s.ok()) return s;
  }
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
  if (!runtime_inputs_.count(name)) return "";
  return StrCat("; it is the graph input '", name, "': give its value at compile time with --bind ", name,
                "=FILE (.npy or .pb)");
}

absl::StatusOr<std::vector<int64_t>> Importer::ConstInts(const onnx::NodeProto& n, int i, const char* what) {
  const Value& v = In(n, i);
  if (!v.constant) {
    return NodeError(n, StrCat(what, " ('", n.input(i), "') must be a compile-time constant", SuggestBind(n.input(i))));
  }
  if (!te::IsInt(v.constant->dtype)) return NodeError(n, StrCat(what, " must be an integer tensor"));
  return v.constant->ToInt64s();
}

absl::StatusOr<double> Importer::ConstScalar(const onnx::NodeProto& n, int i, const char* what) {
  const Value& v = In(n, i);
  if (!v.constant || v.constant->NumElements() != 1)
    return NodeError(n, StrCat(what, " ('", n.input(i), "') must be a compile-time constant scalar", SuggestBind(n.input(i))));
  return v.constant->GetDouble(0);
}

absl::StatusOr<Attrs> Importer::CopyAttrs(const onnx::NodeProto& n, const std::set<std::string>& drop) {
  Attrs attrs;
  for (const auto& a : n.attribute()) {
    if (drop.count(a.name())) continue;
    auto v = AttrFromOnnx(a);
    if (!v.ok()) return NodeError(n, std::string(v.status().message()));
    attrs.Set(a.name(), std::move(*v));
  }
  return attrs;
}

absl::Status Importer::Emit(const onnx::NodeProto& n, const std::string& op, const std::vector<Value>& inputs,
                            Attrs attrs) {
  if (graph::OpRegistry::Global().Find(op) == nullptr)
    return NodeError(n, StrCat("unsupported op (opset ", opset_, ")"));
  graph::Node node;
  node.name = n.name().empty() ? graph_.UniqueName(StrCat(op, "_", n.output(0))) : n.name();
  node.op = op;
  node.attrs = attrs;
  std::vector<TensorType> in_types;
  bool all_const = true;
  for (const Value& v : inputs) {
    in_types.push_back(v.type);
    all_const = all_const && v.constant != nullptr;
  }
  if (absl::Status s = graph::PrepareNode(&node, in_types); !s.ok()) return s;
  int used_outputs = 0;
  for (const std::string& out : n.output()) used_outputs += !out.empty();
  if (static_cast<int>(node.outputs.size()) < n.output_size()) {
    for (int i = static_cast<int>(node.outputs.size()); i < n.output_size(); ++i)
      if (!n.output(i).empty()) return NodeError(n, StrCat("output ", i, " ('", n.output(i), "') is not supported"));
  }
  if (n.output_size() == 0 || used_outputs == 0) return absl::OkStatus();  // nothing reads it
  if (all_const) {
    std::vector<const HostTensor*> args;
    for (const Value& v : inputs) args.push_back(v.constant.get());
    auto folded = EvaluateConstant(node, args);
    if (!folded.ok()) return folded.status();
    if (folded->has_value()) {
      for (size_t i = 0; i < (*folded)->size(); ++i)
        if (!n.output(i).empty()) BindConst(n.output(i), std::move((**folded)[i]));
      return absl::OkStatus();
    }
  }
  std::vector<NodeEntry> entries;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Value v = inputs[i];
    if (v.entry) {
      entries.push_back(*v.entry);
      continue;
    }
    // Constants are keyed by their ONNX name when the node reads one directly.
    auto it = values_.end();
    for (int k = 0; k < n.input_size(); ++k)
      if (!n.input(k).empty() && values_.at(n.input(k)).constant == v.constant) it = values_.find(n.input(k));
    auto e = it != values_.end() ? Materialize(it->first, &it->second) : Materialize(StrCat(node.name, "_const"), &v);
    if (!e.ok()) return e.status();
    entries.push_back(*e);
  }
  auto outs = graph_.AddNode(op, node.name, entries, std::move(attrs));
  if (!outs.ok()) return outs.status();
  for (size_t i = 0; i < outs->size() && i < static_cast<size_t>(n.output_size()); ++i)
    if (!n.output(i).empty()) values_[n.output(i)] = Value{graph_.type((*outs)[i]), (*outs)[i], nullptr};
  return absl::OkStatus();
}

absl::Status Importer::ResolveAutoPad(const onnx::NodeProto& n, const TensorType& x, std::vector<int64_t> kernel,
                                      Attrs* attrs) {
  std::string mode = attrs->GetString("auto_pad", "NOTSET");
  attrs->Erase("auto_pad");
  if (mode == "NOTSET" || mode.empty()) return absl::OkStatus();
  size_t spatial = x.shape.size() >= 2 ? x.shape.size() - 2 : 0;
  if (kernel.size() != spatial) return NodeError(n, "auto_pad needs kernel_shape for every spatial dim");
  std::vector<int64_t> strides = attrs->GetInts("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> dil = attrs->GetInts("dilations", std::vector<int64_t>(spatial, 1));
  if (strides.size() != spatial || dil.size() != spatial) return NodeError(n, "strides/dilations rank mismatch");
  std::vector<int64_t> pads(2 * spatial, 0);
  if (mode != "VALID") {
    if (mode != "SAME_UPPER" && mode != "SAME_LOWER") return NodeError(n, StrCat("unknown auto_pad '", mode, "'"));
    for (size_t i = 0; i < spatial; ++i) {
      if (strides[i] <= 0 || kernel[i] <= 0 || dil[i] <= 0)
        return NodeError(n, "kernel_shape, strides and dilations must be positive");
      // 128-bit: the attributes are any int64 from the file, and overflow was UB (fuzz).
      __int128 in = x.shape[2 + i], out = (in + strides[i] - 1) / strides[i];
      __int128 need = (out - 1) * strides[i] + static_cast<__int128>(kernel[i] - 1) * dil[i] + 1 - in;
      if (need > (int64_t{1} << 40)) return NodeError(n, "auto_pad: kernel_shape/strides/dilations are too large");
      int64_t total = std::max<int64_t>(0, static_cast<int64_t>(need));
      int64_t small = total / 2, big = total - small;
      pads[i] = mode == "SAME_UPPER" ? small : big;
      pads[i + spatial] = mode == "SAME_UPPER" ? big : small;
    }
  }
  attrs->Set("pads", pads);
  return absl::OkStatus();
}

absl::Status Importer::Convert(const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty() && !values_.count(n.input(i)))
      return NodeError(n, StrCat("undefined input name '", n.input(i), "'"));
  if (n.output_size() == 0) return NodeError(n, "has no outputs");
  auto attrs_or = CopyAttrs(n);
  if (!attrs_or.ok()) return attrs_or.status();
  Attrs attrs = std::move(*attrs_or);
  std::vector<Value> data;
  auto need_inputs = [&](int count) -> absl::Status {
    for (int i = 0; i < count; ++i)
      if (!HasInput(n, i)) return NodeError(n, StrCat("missing input ", i));
    return absl::OkStatus();
  };
  auto first_only = [&]() -> absl::Status {

    for (int i = 1; i < n.output_size(); ++i)
      if (!n.output(i).empty()) return NodeError(n, StrCat("output ", i, " ('", n.output(i), "') is not supported"));
    return absl::OkStatus();
  };
#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    absl::Status _s = (expr);                  \
    if (!_s.ok()) return _s;                   \
  } while (0)
#define ASSIGN_OR_RETURN(lhs, expr)            \
  auto lhs##_or = (expr);                      \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = std::move(*lhs##_or)

  if (op == "Constant") {
    const auto* t = attrs.GetTensor("value");
    if (t) {
      BindConst(n.output(0), *t);
    } else if (attrs.Has("value_float")) {
      BindConst(n.output(0), HostTensor::FromFloats({static_cast<float>(attrs.GetFloat("value_float"))}, {}));
    } else if (attrs.Has("value_floats")) {
      std::vector<float> v;
      for (double d : attrs.GetFloats("value_floats")) v.push_back(static_cast<float>(d));
      int64_t size = static_cast<int64_t>(v.size());
      BindConst(n.output(0), HostTensor::FromFloats(v, {size}));
    } else if (attrs.Has("value_int")) {
      BindConst(n.output(0), HostTensor::FromInt64s({attrs.GetInt("value_int")}, {}));
    } else if (attrs.Has("value_ints")) {
      auto v = attrs.GetInts("value_ints");
      BindConst(n.output(0), HostTensor::FromInt64s(v, {static_cast<int64_t>(v.size())}));
    } else {
      return NodeError(n, "unsupported Constant form (needs value, value_float(s) or value_int(s))");
    }
    return absl::OkStatus();
  }
  // Every converter below reads input 0; a known op with no inputs would index past the end
  // (fuzz: an AveragePool node with its inputs deleted). Unknown ops keep their "unsupported" error.
  if (n.input_size() == 0 && graph::OpRegistry::Global().Find(op) == nullptr && op != "Size" &&
      op != "ConstantOfShape" && op != "Dropout")
    return NodeError(n, StrCat("unsupported op (opset ", opset_, ")"));
  RETURN_IF_ERROR(need_inputs(1));
  if (op == "Shape" || op == "Size") {
    RETURN_IF_ERROR(need_inputs(1));
    std::vector<int64_t> dims = In(n, 0).type.shape;
    if (op == "Size") {
      int64_t count = 1;
      for (int64_t d : dims) count *= d;
      BindConst(n.output(0), HostTensor::FromInt64s({count}, {}));
      return absl::OkStatus();
    }
    int64_t rank = static_cast<int64_t>(dims.size());
    int64_t start = attrs.GetInt("start", 0), end = attrs.GetInt("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    std::vector<int64_t> part(dims.begin() + start, dims.begin() + end);
    BindConst(n.output(0), HostTensor::FromInt64s(part, {static_cast<int64_t>(part.size())}));
    return absl::OkStatus();
  }
  if (op == "ConstantOfShape") {
    RETURN_IF_ERROR(need_inputs(1));
    ASSIGN_OR_RETURN(shape, ConstInts(n, 0, "shape"));
    const HostTensor* value = attrs.GetTensor("value");
    te::DType dtype = value ? value->dtype : te::DType::kFloat32;
    if (value && value->NumElements() != 1) return NodeError(n, "value must hold one element");
    auto t = HostTensor::Zeros(dtype, shape);
    if (!t.ok()) return NodeError(n, std::string(t.status().message()));
    if (value)
      for (int64_t i = 0; i < t->NumElements(); ++i) std::memcpy(t->bytes.data() + i * value->bytes.size(),
                                                                  value->bytes.data(), value->bytes.size());
    BindConst(n.output(0), std::move(*t));
    return absl::OkStatus();
  }
  if (op == "Identity" || op == "Dropout") {
    RETURN_IF_ERROR(need_inputs(1));
    if (op == "Identity") RETURN_IF_ERROR(first_only());
    if (op == "Dropout" && attrs.GetInt("is_test", 1) == 0 && opset_ < 7) return NodeError(n, "training Dropout");
    if (HasInput(n, 2)) {
      // Training with ratio 0 drops nothing, so it is the identity too.
      auto training = ConstScalar(n, 2, "training_mode");
      auto ratio = HasInput(n, 1) ? ConstScalar(n, 1, "ratio") : absl::StatusOr<double>(0.5);
      if (!training.ok() || (*training != 0 && (!ratio.ok() || *ratio != 0)))
        return NodeError(n, "only inference Dropout is supported");
    }
    values_[n.output(0)] = In(n, 0);
    if (op == "Dropout" && n.output_size() > 1 && !n.output(1).empty()) {  // the mask keeps everything
      auto mask = HostTensor::Zeros(te::DType::kBool, In(n, 0).type.shape);
      if (!mask.ok()) return NodeError(n, std::string(mask.status().message()));
      std::fill(mask->bytes.begin(), mask->bytes.end(), uint8_t{1});
      BindConst(n.output(1), std::move(*mask));
    }
    return absl::OkStatus();
  }
  if (op == "Reshape") {
    RETURN_IF_ERROR(need_inputs(2));
    ASSIGN_OR_RETURN(target, ConstInts(n, 1, "shape"));
    auto shape = graph::ResolveReshape(In(n, 0).type.shape, target, attrs.GetInt("allowzero") != 0);
    if (!shape.ok()) return NodeError(n, std::string(shape.status().message()));
    Attrs a;
    a.Set("shape", *shape);
    if (attrs.GetInt("allowzero") != 0) a.Set("allowzero", int64_t{1});  // the target's zeros are dims
    return Emit(n, op, {In(n, 0)}, a);
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    if (HasInput(n, 1)) {
      ASSIGN_OR_RETURN(axes, ConstInts(n, 1, "axes"));
      attrs.Set("axes", axes);
    }
    return Emit(n, op, {In(n, 0)}, attrs);
  }
  if (op == "Slice") {
    if (n.input_size() > 1) {
      RETURN_IF_ERROR(need_inputs(3));
      const char* names[] = {"", "starts", "ends", "axes", "steps"};
      for (int i = 1; i < 5; ++i)
        if (HasInput(n, i)) {
          ASSIGN_OR_RETURN(v, ConstInts(n, i, names[i]));
          attrs.Set(names[i], v);
        }
    }
    return Emit(n, op, {In(n, 0)}, attrs);
  }
  if (op == "Split") {
    // One Slice per output: sizes from the `split` input (opset 13) or attribute, else equal parts.
    const TensorType& x = In(n, 0).type;
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    int64_t axis = attrs.GetInt("axis", 0);
    if (axis < -rank || axis >= rank) return NodeError(n, StrCat("axis ", axis, " is out of range for rank ", rank));
    if (axis < 0) axis += rank;
    std::vector<int64_t> sizes = attrs.GetInts("split");
    if (HasInput(n, 1)) {
      ASSIGN_OR_RETURN(given, ConstInts(n, 1, "split"));
      sizes = given;
    }
    const int64_t parts = n.output_size(), extent = x.shape[axis];
    if (sizes.empty()) {
      if (parts == 0 || extent % parts != 0)
        return NodeError(n, StrCat("axis ", axis, " of extent ", extent, " does not split into ", parts, " equal parts"));
      sizes.assign(parts, extent / parts);
    }
    int64_t total = 0;
    for (int64_t size : sizes) total += size < 0 ? extent + 1 : size;  // a negative size fails the check below
    if (static_cast<int64_t>(sizes.size()) != parts || total != extent)
      return NodeError(n, StrCat("split sizes [", StrJoin(sizes, ","), "] do not cover axis ", axis, " (extent ", extent,
                                 ") in ", parts, " outputs"));
    int64_t start = 0;
    for (int64_t i = 0; i < parts; ++i) {
      onnx::NodeProto part = n;
      part.clear_output();
      part.add_output(n.output(i));
      part.set_name(StrCat(n.name().empty() ? n.output(i) : n.name(), ".part", i));
      Attrs slice;
      slice.Set("starts", std::vector<int64_t>{start});
      slice.Set("ends", std::vector<int64_t>{start + sizes[i]});
      slice.Set("axes", std::vector<int64_t>{axis});
      start += sizes[i];
      if (n.output(i).empty()) continue;
      RETURN_IF_ERROR(Emit(part, "Slice", {In(n, 0)}, std::move(slice)));
    }
    return absl::OkStatus();
  }
  if (op == "Expand" || op == "Tile") {
    RETURN_IF_ERROR(need_inputs(2));
    ASSIGN_OR_RETURN(v, ConstInts(n, 1, op == "Expand" ? "shape" : "repeats"));
    attrs.Set(op == "Expand" ? "shape" : "repeats", v);
    return Emit(n, op, {In(n, 0)}, attrs);
  }
  if (op == "Clip") {
    // Bounds that are runtime inputs (they change no shape) clip through Max then Min, which
    // broadcast; constant bounds become attributes of one Clip.
    auto runtime = [&](int i) { return HasInput(n, i) && In(n, i).constant == nullptr; };
    if (runtime(1) || runtime(2)) {
      RETURN_IF_ERROR(first_only());
      Value x = In(n, 0);
      if (HasInput(n, 1)) {
        onnx::NodeProto lower = n;  // the intermediate max(x, min) under a name of its own
        lower.set_name(graph_.UniqueName(StrCat(n.name().empty() ? StrCat("Clip_", n.output(0)) : n.name(), ".min")));
        lower.set_output(0, graph_.UniqueName(StrCat(n.output(0), ".clip_min")));
        if (!HasInput(n, 2)) return Emit(n, "Max", {x, In(n, 1)}, {});
        RETURN_IF_ERROR(Emit(lower, "Max", {x, In(n, 1)}, {}));
        x = values_.at(lower.output(0));
      }
      return Emit(n, "Min", {x, In(n, 2)}, {});
    }
    if (HasInput(n, 1)) {
      ASSIGN_OR_RETURN(lo, ConstScalar(n, 1, "min"));
      attrs.Set("min", lo);
    }
    if (HasInput(n, 2)) {
      ASSIGN_OR_RETURN(hi, ConstScalar(n, 2, "max"));
      attrs.Set("max", hi);
    }
    return Emit(n, op, {In(n, 0)}, attrs);
  }
  if (op == "Pad") {
    if (HasInput(n, 1)) {
      ASSIGN_OR_RETURN(pads, ConstInts(n, 1, "pads"));
      attrs.Set("pads", pads);
    }
    if (HasInput(n, 2)) {
      ASSIGN_OR_RETURN(value, ConstScalar(n, 2, "constant_value"));
      attrs.Set("value", value);
    }
    if (HasInput(n, 3)) return NodeError(n, "the axes input is not supported");
    return Emit(n, op, {In(n, 0)}, attrs);
  }
  if (op == "Cast") {
    auto to = DTypeFromOnnx(static_cast<int32_t>(attrs.GetInt("to", -1)));
    if (!to.ok()) return NodeError(n, StrCat("unsupported op: ", std::string(to.status().message())));
    attrs.Set("to", std::string(te::DTypeName(*to)));
    attrs.Erase("saturate");
    return Emit(n, op, {In(n, 0)}, attrs);
  }
  if (op == "CastLike") {  // a Cast to input 1's dtype; input 1's values are never read
    RETURN_IF_ERROR(need_inputs(2));
    attrs.Erase("saturate");
    attrs.Set("to", std::string(te::DTypeName(In(n, 1).type.dtype)));
    return Emit(n, "Cast", {In(n, 0)}, attrs);
  }
  if (op == "CumSum") {  // the axis, a compile-time scalar
    RETURN_IF_ERROR(need_inputs(2));
    ASSIGN_OR_RETURN(axis, ConstInts(n, 1, "axis"));
    if (axis.size() != 1) return NodeError(n, StrCat("axis must hold one value, got ", axis.size()));
    attrs.Set("axis", axis[0]);
    return Emit(n, op, {In(n, 0)}, attrs);
  }
  if (op == "Trilu" && HasInput(n, 1)) {  // the diagonal offset k, a compile-time scalar
    ASSIGN_OR_RETURN(k, ConstInts(n, 1, "k"));
    if (k.size() != 1) return NodeError(n, StrCat("k must hold one value, got ", k.size()));
    attrs.Set("k", k[0]);
    return Emit(n, op, {In(n, 0)}, attrs);
  }
  if (StartsWith(op, "Reduce")) {
    int64_t noop = attrs.GetInt("noop_with_empty_axes", 0);
    attrs.Erase("noop_with_empty_axes");
    if (HasInput(n, 1)) {
      ASSIGN_OR_RETURN(axes, ConstInts(n, 1, "axes"));
      attrs.Set("axes", axes);
    }
    if (noop && attrs.GetInts("axes").empty()) {
      values_[n.output(0)] = In(n, 0);
      return absl::OkStatus();
    }
    return Emit(n, op, {In(n, 0)}, attrs);
  }
  if (op == "Conv" || op == "MaxPool" || op == "AveragePool") {
    // A MaxPool whose Indices output is read is the two-output form.
    const bool with_indices = op == "MaxPool" && !first_only().ok();
    if (!with_indices) RETURN_IF_ERROR(first_only());
    std::vector<int64_t> kernel = attrs.GetInts("kernel_shape");
    if (kernel.empty() && op == "Conv" && HasInput(n, 1) && In(n, 1).type.shape.size() > 2)
      kernel.assign(In(n, 1).type.shape.begin() + 2, In(n, 1).type.shape.end());
    RETURN_IF_ERROR(ResolveAutoPad(n, In(n, 0).type, kernel, &attrs));
    if (with_indices) {
      for (int i = 0; i < n.input_size(); ++i)
        if (HasInput(n, i)) data.push_back(In(n, i));
      return Emit(n, "MaxPoolWithIndices", data, std::move(attrs));
    }
  }
  if (op == "BatchNormalization") {
    if (attrs.GetInt("training_mode", 0) != 0 && attrs.GetInt("spatial", 1) == 1 && n.input_size() == 5) {
      // Batch statistics, plus the updated running mean and variance.
      attrs.Erase("training_mode");
      RETURN_IF_ERROR(need_inputs(5));  // an empty name would make In() throw
      for (int i = 0; i < 5; ++i) data.push_back(In(n, i));
      return Emit(n, "BatchNormalizationTraining", data, std::move(attrs));
    }
    RETURN_IF_ERROR(first_only());
    if (attrs.GetInt("training_mode", 0) != 0) return NodeError(n, "training-mode BatchNormalization is not supported");
    if (attrs.GetInt("spatial", 1) != 1) return NodeError(n, "spatial=0 BatchNormalization is not supported");
    attrs.Erase("training_mode");
    attrs.Erase("spatial");
  }
  if (op == "LayerNormalization" && !first_only().ok()) {
    // Mean and InvStdDev are read too: the three-output form.
    for (int i = 0; i < n.input_size(); ++i)
      if (HasInput(n, i)) data.push_back(In(n, i));
    return Emit(n, "LayerNormalizationWithStats", data, std::move(attrs));
  }
  if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && opset_ < 13) {
    // Before opset 13, softmax flattens to 2-D at `axis` (default 1) and normalizes the rows.
    const TensorType& x = In(n, 0).type;
    int64_t rank = static_cast<int64_t>(x.shape.size());
    int64_t axis = attrs.GetInt("axis", 1);
    if (axis < 0) axis += rank;
    int64_t trailing = 1;
    for (int64_t d = axis + 1; d < rank; ++d) trailing *= x.shape[d];
    if (axis < 0 || axis >= rank) return NodeError(n, "axis out of range");
    if (trailing != 1) return NodeError(n, StrCat("opset < 13 ", op, " over more than one axis is not supported"));
    attrs.Set("axis", axis);
  }
  // The generic path: every input is data, every attribute copied.
  if (graph::OpRegistry::Global().Find(op) == nullptr)
    return NodeError(n, StrCat("unsupported op (opset ", opset_, ")"));
  for (int i = 0; i < n.input_size(); ++i) {
    if (n.input(i).empty()) {
      for (int k = i + 1; k < n.input_size(); ++k)
        if (!n.input(k).empty()) return NodeError(n, StrCat("optional input ", i, " left empty is not supported"));
      break;
    }
    data.push_back(In(n, i));
  }
  return Emit(n, op, data, std::move(attrs));
#undef RETURN_IF_ERROR
#undef ASSIGN_OR_RETURN
}

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
      // Versions 1 then 11: the reductions and ArgMax/ArgMin; 1, 6, 22: InstanceNormalization.
      {"ReduceSum", 1},         {"ReduceMean", 1},    {"ReduceMax", 1}, {"ReduceMin", 1},
      {"ReduceProd", 1},        {"ReduceL2", 1},      {"ReduceSumSquare", 1}, {"ReduceLogSum", 1},
      {"ReduceLogSumExp", 1},   {"ArgMax", 1},        {"ArgMin", 1},    {"InstanceNormalization", 6},
      // Version 6 dropped consumed_inputs; unchanged until 22. Not has a single version.
      {"Elu", 6},               {"HardSigmoid", 6},   {"Selu", 6},      {"Not", 1}};
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
