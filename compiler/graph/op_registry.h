// The op registry: the one table of graph ops. Each op family has one file, family_<name>.cc
// (elementwise, shape, index, conv, matmul, normalization, reduce, generate, quantize, layout,
// resize, recurrent, signal, text), which registers for each of its ops: the schema (inputs,
// attributes with defaults), shape and type inference, the fusion
// pattern, the TE compute (from compiler/ops) and, where the ONNX node is more than "this op
// with every input and attribute", its ONNX converters with the opsets they cover. Constant
// folding runs that same compute (node_interpreter.h), so an op has one meaning everywhere.
//
// Adding an op:
//   1. its compute in compiler/ops/ (a new file for a new family), tested against a naive
//      reference in tests/ops/;
//   2. in its family's family_<name>.cc (a new file, and one line in OpRegistry::Global, for a
//      new family): one Register line (schema, Infer function, OpPattern) and one Set line (the
//      compute calling compiler/ops);
//   3. a converter there (RegisterOnnx) only when ONNX's node needs rewriting: operands that must
//      be compile-time constants, attributes renamed, several graph nodes;
//   4. its cases of ../shared/onnx-tests passing: run build/tests/conformance/conformance_runner
//      --filter NAME, then raise tests/conformance/whole_suite_floor.txt;
//   5. nothing for the fuzzer: every conformance case is in its corpus (docs/fuzzing.md); run
//      fuzz/run_fuzz.sh after a new family.
// Nothing else: the importer, constant folding, fusion and the conformance reference all read
// this table.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/onnx_converter.h"

namespace tunefarm::graph {

// How an op may fuse (TVM's OpPatternKind), from most to least fusable.
enum class OpPattern { kElementwise, kBroadcast, kInjective, kReduction, kOutElementwiseFusable, kOpaque };
std::string_view OpPatternName(OpPattern p);

struct AttrSpec {
  std::string name;
  AttrKind kind;
  std::optional<AttrValue> default_value;  // nullopt: required
};

// Fills `out` with one type per output, or returns the reason inference failed (the caller adds
// the node and op names).
using InferFn = std::function<absl::Status(const Node& node, const std::vector<TensorType>& in,
                                           std::vector<TensorType>* out)>;

// The op's tensor-expression compute, from compiler/ops (op_compute.h); set by its family.
struct OpCompute;

struct OpSchema {
  std::string name;
  int min_inputs = 1;
  int max_inputs = 1;  // -1: variadic
  int num_outputs = 1;
  std::vector<AttrSpec> attrs;
  InferFn infer;
  OpPattern pattern = OpPattern::kOpaque;
  std::shared_ptr<const OpCompute> compute = nullptr;  // set by the family (Set): none until then
};

class OpRegistry {
 public:
  static OpRegistry& Global();
  void Register(OpSchema schema);
  const OpSchema* Find(const std::string& name) const;
  // Fills the compute slot of a registered op (aborts for an unknown op: a registration bug).
  void SetCompute(const std::string& name, std::shared_ptr<const OpCompute> compute);
  std::vector<std::string> Names() const;

  // ONNX converters (onnx_converter.h). Ranges of one ONNX op must not overlap.
  void RegisterOnnx(OnnxConverter converter);
  // The converter of `onnx_op` at `opset`, or null: then the importer emits the graph op of the
  // same name with every input and attribute.
  const OnnxConverter* FindOnnx(const std::string& onnx_op, int opset) const;
  // The first opset `onnx_op` has a converter for; 0 when it has none.
  int FirstOnnxOpset(const std::string& onnx_op) const;

 private:
  std::map<std::string, OpSchema> schemas_;
  std::multimap<std::string, OnnxConverter> converters_;
};

// Checks `node` (op, attrs; inputs of `in_types`) against its schema, fills attribute defaults and
// infers node->outputs. Errors name the node, the op and the reason.
absl::Status PrepareNode(Node* node, const std::vector<TensorType>& in_types);

// One function per op family, each in its family_<name>.cc (called once by OpRegistry::Global).
void RegisterElementwiseFamily(OpRegistry* r);
void RegisterShapeFamily(OpRegistry* r);
void RegisterConvFamily(OpRegistry* r);
void RegisterMatmulFamily(OpRegistry* r);
void RegisterNormalizationFamily(OpRegistry* r);
void RegisterReduceFamily(OpRegistry* r);
void RegisterGenerateFamily(OpRegistry* r);
void RegisterQuantizeFamily(OpRegistry* r);
// NCHW[x]c forms made by the layout pass.
void RegisterLayoutFamily(OpRegistry* r);
void RegisterResizeFamily(OpRegistry* r);
void RegisterIndexFamily(OpRegistry* r);
void RegisterRecurrentFamily(OpRegistry* r);
void RegisterSignalFamily(OpRegistry* r);
void RegisterTextFamily(OpRegistry* r);

// NegativeLogLikelihoodLoss's ignore_index when the model sets none (ONNX's attribute is optional
// with no default, and any integer is a valid class index to ignore).
inline constexpr int64_t kNoIgnoreIndex = INT64_MIN;

// ---- shape helpers shared by inference and the frontend's constant evaluator ----

// Numpy broadcasting of two shapes.
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// Maps axis in [-rank, rank) to [0, rank).
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank);

// One sliced axis: elements start, start+step, ... (count of them).
struct SliceAxis {
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};
// ONNX Slice semantics (clamping, negative indices, negative steps) for a tensor of `shape`.
absl::StatusOr<std::vector<SliceAxis>> ResolveSlice(const std::vector<int64_t>& shape, const std::vector<int64_t>& starts,
                                                    const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                                                    std::vector<int64_t> steps);
// Reshape target with ONNX's 0 (copy the input dim) and -1 (infer) resolved.
absl::StatusOr<std::vector<int64_t>> ResolveReshape(const std::vector<int64_t>& in, const std::vector<int64_t>& target,
                                                    bool allow_zero = false);

}  // namespace tunefarm::graph
