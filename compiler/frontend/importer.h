// The ONNX importer's state, shared by its files: onnx_importer.cc (graphs, nodes, the
// converters' OnnxNode), onnx_control_flow.cc (If) and onnx_loops.cc (Loop, Scan). Internal to
// compiler/frontend.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/graph/graph.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {


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

// "node 'name' (op Op): why", or "node producing 'out'" for an unnamed node.
absl::Status NodeError(const onnx::NodeProto& n, const std::string& why);

// Names a graph's nodes read from the scopes around it (recursively through nested subgraphs).
std::set<std::string> OuterReads(const onnx::GraphProto& g);

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
  // Every node of `g` (default domain only), in topological order.
  absl::Status ConvertNodes(const onnx::GraphProto& g);

  // Control flow (onnx_control_flow.cc). If: a constant cond inlines its branch; a runtime one
  // inlines both and selects each output with Where (the branches must agree in type).
  absl::Status ConvertIf(const onnx::NodeProto& n);
  // Loop and Scan (onnx_loops.cc): unrolled at import, so the trip count must be known at
  // compile time (a constant, a bound input, or a scan axis's extent).
  absl::Status ConvertLoop(const onnx::NodeProto& n);
  absl::Status ConvertScan(const onnx::NodeProto& n);
  // Imports subgraph `g` of node `n` into this graph under fresh value names (`tag` tells
  // branches and iterations apart), its formal inputs reading the values `inputs`, and returns
  // the values of its outputs.
  absl::StatusOr<std::vector<std::string>> InlineSubgraph(const onnx::NodeProto& n, const onnx::GraphProto& g,
                                                          const std::string& tag,
                                                          const std::vector<std::string>& inputs = {});
  // A value name no model value has nor will have.
  std::string FreshValueName(const std::string& base);

  // Helpers for converters (ImporterNode exposes them as graph::OnnxNode).
  friend class ImporterNode;
  friend class LoopBuilder;
  absl::StatusOr<std::vector<int64_t>> ConstInts(const onnx::NodeProto& n, int i, const char* what);
  absl::StatusOr<std::vector<double>> ConstNumbers(const onnx::NodeProto& n, int i, const char* what);
  absl::StatusOr<double> ConstScalar(const onnx::NodeProto& n, int i, const char* what);
  absl::StatusOr<Attrs> CopyAttrs(const onnx::NodeProto& n);
  // Adds graph op `op` as node `name` on the values `inputs`, defining the values `outputs`;
  // folds it when every input is constant and the op can be evaluated. `n` is the ONNX node it
  // came from, for errors.
  absl::Status Emit(const onnx::NodeProto& n, const std::string& name, const std::string& op,
                    const std::vector<std::string>& inputs, Attrs attrs, const std::vector<std::string>& outputs);
  void BindConst(const std::string& name, HostTensor t);
  absl::StatusOr<NodeEntry> Materialize(const std::string& name, Value* v);

  const ImportOptions& options_;
  int opset_;
  graph::Graph graph_;
  std::map<std::string, Value> values_;
  std::set<std::string> runtime_inputs_;  // graph inputs that are neither initializers nor bound
  std::set<std::string> model_names_;     // every value name of the model, subgraphs included
  int64_t unrolled_nodes_ = 0;            // body nodes Loop and Scan copied so far (nested too)
};

}  // namespace tunefarm::frontend
