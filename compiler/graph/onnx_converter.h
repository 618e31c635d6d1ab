// ONNX converters: how one ONNX node becomes graph nodes, for the ops where that is more than
// "the graph op of the same name, every input as data, every attribute copied" (the importer's
// generic path). A converter lives in its op family's file beside the family's schemas and
// computes, and is registered with the opsets it covers (OpRegistry::RegisterOnnx).
//
// A converter sees the node through OnnxNode, which knows nothing of ONNX's protobufs, so the
// op families stay free of them: values are named by their ONNX names, attributes are already
// graph Attrs, and an operand needed at compile time comes as a constant (or a clear error that
// suggests --bind).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::graph {

class OnnxNode {
 public:
  virtual ~OnnxNode() = default;

  virtual const std::string& op() const = 0;
  virtual int opset() const = 0;
  // The node's attributes, converted; a converter may edit them before it emits.
  virtual Attrs& attrs() = 0;

  // Input and output value names, "" where an optional one is left out.
  virtual int num_inputs() const = 0;
  virtual const std::string& input(int i) const = 0;
  bool HasInput(int i) const { return i < num_inputs() && !input(i).empty(); }
  virtual int num_outputs() const = 0;
  virtual const std::string& output(int i) const = 0;
  bool HasOutput(int i) const { return i < num_outputs() && !output(i).empty(); }

  // The type of a defined value (an input of this node, or a value this converter emitted).
  virtual const TensorType& Type(const std::string& value) const = 0;
  const TensorType& InputType(int i) const { return Type(input(i)); }
  // The value's data when it is known at compile time, else null.
  virtual const HostTensor* Constant(const std::string& value) const = 0;
  // Input i as compile-time integers / one number; `what` names it in the error, which suggests
  // --bind when the input is a graph input.
  virtual absl::StatusOr<std::vector<int64_t>> ConstInts(int i, const char* what) const = 0;
  virtual absl::StatusOr<double> ConstScalar(int i, const char* what) const = 0;
  // Input i's compile-time values of any numeric dtype, as doubles (Resize's scales and roi).
  virtual absl::StatusOr<std::vector<double>> ConstNumbers(int i, const char* what) const = 0;
  // Input i as one compile-time integer (a scalar or a one-element tensor).
  absl::StatusOr<int64_t> ConstInt(int i, const char* what) const;
  // When input i is present: its compile-time integers / scalar as attribute `attr` (the opsets
  // that moved an attribute to an input). Nothing when it is absent. Errors name the input
  // `what` (default: attr).
  absl::Status IntsInputToAttr(int i, const char* attr, Attrs* attrs, const char* what = nullptr) const;
  absl::Status ScalarInputToAttr(int i, const char* attr, Attrs* attrs, const char* what = nullptr) const;
  // The dtype of an ONNX TensorProto data-type code (Cast's `to`).
  virtual absl::StatusOr<te::DType> DTypeFromOnnxCode(int64_t code) const = 0;

  // Adds graph op `op` on `inputs` (value names), defining `outputs` (value names; "" for an
  // output nobody reads). Folds it when every input is a constant. `name` is the graph node's
  // name ("" for the ONNX node's own).
  virtual absl::Status Emit(const std::string& op, const std::vector<std::string>& inputs, Attrs attrs,
                            const std::vector<std::string>& outputs, const std::string& name = "") = 0;
  // Emit with this node's inputs and outputs. Optional inputs may be left out only at the end.
  absl::Status EmitAsIs(const std::string& op, Attrs attrs);
  // Defines `value` as another name for `existing`.
  virtual void Alias(const std::string& value, const std::string& existing) = 0;
  virtual void BindConstant(const std::string& value, HostTensor data) = 0;
  // A value or node name of this graph no one uses yet, built from `hint`.
  virtual std::string UniqueName(const std::string& hint) = 0;

  // An error naming this node and its op.
  virtual absl::Status Error(const std::string& why) const = 0;
  // An error unless input 0..count-1 are all present.
  absl::Status NeedInputs(int count) const;
  // An error when any output but the first is read.
  absl::Status FirstOutputOnly() const;
};

using OnnxConvertFn = absl::Status (*)(OnnxNode& node);

// One converter for ONNX op `onnx_op` at opsets [since, until] (until -1: no upper end).
struct OnnxConverter {
  std::string onnx_op;
  int since = 1;
  int until = -1;
  OnnxConvertFn convert = nullptr;
};

}  // namespace tunefarm::graph
