// The compute DAG: placeholders (kernel inputs) and compute stages, each stage an expression
// tree over its own axes, in topological order. This is the unit the tuner tunes: one DAG per
// fused group of graph ops, identified by its workload key.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/te/expr.h"

namespace tunefarm::te {

enum class ReduceKind : uint8_t { kNone, kSum, kMax, kMin, kProd };
std::string_view ReduceKindName(ReduceKind k);

// One tensor of the DAG. A placeholder has no body; a compute stage defines element
// (axis_0, ..., axis_n) as `body`, or, with a reduction, as the `reduce` combination of `body`
// over every point of the reduce axes (kAxis / kReduceAxis leaves refer to this stage's axes).
struct TensorDef {
  std::string name;  // for printing only; not part of the workload key
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  bool is_placeholder = false;
  bool is_constant = false;  // placeholder holding parameters (weights), not a runtime input
  ReduceKind reduce = ReduceKind::kNone;
  std::vector<int64_t> reduce_extents;
  Expr body;

  int64_t NumElements() const;
};

// Identity value of a reduction (0 for sum, lowest for max, highest for min, 1 for prod).
Expr ReduceIdentity(ReduceKind kind, DType dtype);
// Combines an accumulator with a new value.
Expr ReduceCombine(ReduceKind kind, Expr acc, Expr value);

// Per-stage facts the scheduler and the tuner's rules ask for.
struct StageAnalysis {
  // tensor id -> every index list the stage reads it with
  std::map<int, std::vector<std::vector<Expr>>> reads;
  bool is_output = false;
  bool has_reduction = false;
  bool strictly_inlinable = false;  // no reduction, not an output, no expensive math, <= kMaxInlinedLoads
  // A 4x4 Winograd tile reads 16 distinct elements; a Concat or a linear Resize reads a few.
  static constexpr int kMaxInlinedLoads = 8;
  bool needs_multi_level_tiling = false;  // a reduction with data reuse (GEMM, conv)
  int loads = 0;  // distinct elements the body reads (a Winograd transform reads a whole tile)
  double flops = 0;
};

class ComputeDag {
 public:
  ComputeDag(std::vector<TensorDef> tensors, std::vector<int> outputs);

  const std::vector<TensorDef>& tensors() const { return tensors_; }
  const TensorDef& tensor(int id) const { return tensors_[id]; }
  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  // Output tensor ids, in kernel argument order.
  const std::vector<int>& outputs() const { return outputs_; }
  // Placeholder ids, in kernel argument order (they come before the outputs).
  const std::vector<int>& inputs() const { return inputs_; }
  // Ids of compute stages (not placeholders), in topological order.
  const std::vector<int>& stages() const { return stages_; }
  const StageAnalysis& analysis(int tensor_id) const { return analyses_[tensor_id]; }
  // Tensors that read `tensor_id`.
  const std::vector<int>& consumers(int tensor_id) const { return consumers_[tensor_id]; }
  double TotalFlops() const;

  // Canonical text (DESIGN.md "Compute DAG, workload key"): parses back to an equal DAG.
  const std::string& CanonicalText() const { return text_; }
  // "tfdag1-" + SHA-256 hex of CanonicalText().
  const std::string& WorkloadKey() const { return key_; }

  static absl::StatusOr<std::shared_ptr<const ComputeDag>> Parse(std::string_view text);

 private:
  std::vector<TensorDef> tensors_;
  std::vector<int> outputs_, inputs_, stages_;
  std::vector<std::vector<int>> consumers_;
  std::vector<StageAnalysis> analyses_;
  std::string text_, key_;
};

// Builds a DAG from C++ code. Lambdas here run once, at build time, to produce expression trees.
class DagBuilder {
 public:
  struct Tensor {
    int id = -1;
    DType dtype = DType::kFloat32;
    std::vector<int64_t> shape;
    // An element read of this tensor.
    Expr operator()(std::vector<Expr> indices) const;
    template <typename... I>
    Expr operator()(I... i) const {
      return (*this)(std::vector<Expr>{Expr(i)...});
    }
  };
  using Axes = std::vector<Expr>;

  Tensor Placeholder(std::string name, DType dtype, std::vector<int64_t> shape, bool is_constant = false);
  Tensor Compute(std::string name, std::vector<int64_t> shape, const std::function<Expr(const Axes&)>& body);
  Tensor Reduce(std::string name, ReduceKind kind, std::vector<int64_t> shape,
                std::vector<int64_t> reduce_extents,
                const std::function<Expr(const Axes& axes, const Axes& reduce_axes)>& body);
  std::shared_ptr<const ComputeDag> Build(const std::vector<Tensor>& outputs);

 private:
  std::vector<TensorDef> tensors_;
};

}  // namespace tunefarm::te
