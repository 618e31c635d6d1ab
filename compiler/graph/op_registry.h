// The op registry: one OpSchema per op (inputs, attributes, type inference, fusion pattern).
// Schemas are registered per family in ops_nn.cc, ops_elementwise.cc and ops_shape.cc; the
// registry is built once, on first use, from those three tables.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

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

// The op's tensor-expression compute, from compiler/ops (op_compute.h); filled per family by
// compute_*.cc when the registry is built.
struct OpCompute;

struct OpSchema {
  std::string name;
  int min_inputs = 1;
  int max_inputs = 1;  // -1: variadic
  int num_outputs = 1;
  std::vector<AttrSpec> attrs;
  InferFn infer;
  OpPattern pattern = OpPattern::kOpaque;
  std::shared_ptr<const OpCompute> compute;
};

class OpRegistry {
 public:
  static OpRegistry& Global();
  void Register(OpSchema schema);
  const OpSchema* Find(const std::string& name) const;
  // Fills the compute slot of a registered op (aborts for an unknown op: a registration bug).
  void SetCompute(const std::string& name, std::shared_ptr<const OpCompute> compute);
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, OpSchema> schemas_;
};

// Checks `node` (op, attrs; inputs of `in_types`) against its schema, fills attribute defaults and
// infers node->outputs. Errors name the node, the op and the reason.
absl::Status PrepareNode(Node* node, const std::vector<TensorType>& in_types);

// Per-family registration (called once by OpRegistry::Global); computes: see op_compute.h.
void RegisterNnOps(OpRegistry* r);
void RegisterElementwiseOps(OpRegistry* r);
void RegisterShapeOps(OpRegistry* r);
// NCHW[x]c forms made by the layout pass (ops_layout.cc).
void RegisterLayoutOps(OpRegistry* r);

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
