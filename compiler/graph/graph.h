// Graph IR (NNVM-style): a list of nodes in topological order. Each node names a registered op,
// reads outputs of earlier nodes (NodeEntry), carries typed attributes, and records the type
// (dtype + static shape) of each of its outputs. Two pseudo-ops start the graph:
//   "input": a runtime input (attr none; its type set by the caller);
//   "param": a constant tensor whose data lives in Graph::params under the node's name,
//            kept apart from the structure so passes can rewrite it without copying weights.
// Operands that shape the computation (reshape targets, slice bounds, axes, pads) are
// attributes, never tensor inputs: after import no shape arithmetic remains in the graph.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/attrs.h"
#include "compiler/graph/host_tensor.h"
#include "compiler/te/dtype.h"

namespace tunefarm::graph {

inline constexpr char kInputOp[] = "input";
inline constexpr char kParamOp[] = "param";

struct TensorType {
  te::DType dtype = te::DType::kFloat32;
  std::vector<int64_t> shape;

  int64_t NumElements() const;  // INT64_MAX when the product overflows
  std::string ToString() const;  // "float32[1,3,224,224]"
  bool operator==(const TensorType&) const = default;
};

// One output of one node.
struct NodeEntry {
  int node = -1;
  int index = 0;
  bool operator==(const NodeEntry&) const = default;
  auto operator<=>(const NodeEntry&) const = default;
};

struct Node {
  std::string name;  // unique within the graph
  std::string op;
  std::vector<NodeEntry> inputs;
  Attrs attrs;
  std::vector<TensorType> outputs;  // inferred when the node is added

  bool IsInput() const { return op == kInputOp; }
  bool IsParam() const { return op == kParamOp; }
};

class Graph {
 public:
  absl::StatusOr<NodeEntry> AddInput(const std::string& name, TensorType type);
  absl::StatusOr<NodeEntry> AddParam(const std::string& name, HostTensor value);
  // Checks the op against the registry (input count, attribute names and kinds, required
  // attributes), fills attribute defaults and infers the output types. Errors name the node,
  // the op and the reason.
  absl::StatusOr<std::vector<NodeEntry>> AddNode(const std::string& op, const std::string& name,
                                                 std::vector<NodeEntry> inputs, Attrs attrs);
  void AddOutput(const std::string& name, NodeEntry entry);

  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(int i) const { return nodes_[i]; }
  const TensorType& type(NodeEntry e) const { return nodes_[e.node].outputs[e.index]; }
  const std::vector<NodeEntry>& outputs() const { return outputs_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  const std::map<std::string, HostTensor>& params() const { return params_; }
  std::map<std::string, HostTensor>& mutable_params() { return params_; }
  bool HasName(const std::string& name) const { return names_.count(name) != 0; }
  // A name not used yet, derived from `base`.
  std::string UniqueName(const std::string& base) const;

  // Operator nodes per op (inputs and params not counted), in op-name order.
  std::map<std::string, int> OpCounts() const;
  int64_t NumParamElements() const;
  // Every input refers to an earlier node's existing output, every value has a type, every
  // param has data of its declared type.
  absl::Status Verify() const;
  // One line per node: `%3 = Conv(%0, %1, %2) {group=1, ...} -> float32[1,64,112,112]  # name`.
  std::string Dump() const;

 private:
  absl::StatusOr<int> Append(Node node);

  std::vector<Node> nodes_;
  std::map<std::string, int> names_;
  std::vector<NodeEntry> outputs_;
  std::vector<std::string> output_names_;
  std::map<std::string, HostTensor> params_;
};

}  // namespace tunefarm::graph
