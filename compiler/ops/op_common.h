// Shared plumbing of the op library: shape validation that returns a Status (graph import calls
// ops with user-controlled shapes, so a bad shape is an error, never an abort), numpy
// broadcasting, axis normalisation and clamped reads.
//
// Conventions every op follows:
//  - Entry points take a DagBuilder, input Tensors, a params struct and a stage name, and return
//    absl::StatusOr<Tensor>. Errors are InvalidArgument("<op>: <what>").
//  - Every input dimension must be >= 1: zero-sized tensors are rejected (the graph compiler
//    removes them before building kernels).
//  - Select evaluates both arms, so every read inside a select arm is clamped into bounds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/te/compute_dag.h"

namespace tunefarm::ops {

using te::DagBuilder;
using te::DType;
using te::Expr;
using Tensor = te::DagBuilder::Tensor;
using Shape = std::vector<int64_t>;
using Axes = DagBuilder::Axes;

// Dtype sets, named after the ONNX type constraints they stand for. None holds float16 or
// bfloat16: ops compute in float32/float64, and only Cast converts the storage floats.
enum class DTypeSet {
  kFloat,          // float32, float64
  kSignedNumeric,  // int8..int64, float32, float64
  kNumeric,        // every integer, float32, float64
  kInt,            // int32, int64 (indices)
  kBool,           // bool
  kAny,            // the above and bool
};
bool InDTypeSet(DType t, DTypeSet set);
std::string_view DTypeSetName(DTypeSet set);

std::string ShapeString(const Shape& shape);  // "[2,3,4]"
int64_t NumElements(const Shape& shape);

// InvalidArgument("<op>: <what>").
absl::Status OpError(std::string_view op, std::string_view what);
// Every dimension >= 1 and the element count fits comfortably in int64.
absl::Status CheckShape(std::string_view op, std::string_view what, const Shape& shape);
absl::Status CheckDType(std::string_view op, std::string_view what, DType t, DTypeSet allowed);
absl::Status CheckRank(std::string_view op, std::string_view what, const Shape& shape, int rank);
// Axis in [-rank, rank) -> [0, rank).
absl::StatusOr<int> NormalizeAxis(std::string_view op, int64_t axis, int rank);
// A list of distinct axes, normalised and sorted.
absl::StatusOr<std::vector<int>> NormalizeAxes(std::string_view op, const std::vector<int64_t>& axes, int rank);

// Numpy broadcasting: shapes are right-aligned; each pair of dims must be equal or one of them 1.
absl::StatusOr<Shape> BroadcastShapes(std::string_view op, const std::vector<Shape>& shapes);
// The read of `t` at an output point of a broadcast whose output axes are `out`: t's dims align
// with the last t.rank() output axes, and size-1 dims read index 0.
Expr BroadcastRead(const Tensor& t, const Axes& out);

// min(max(i, lo), hi): keeps a read inside the tensor where select guards it.
Expr Clamp(const Expr& i, int64_t lo, int64_t hi);
// lo <= i < hi (the simplifier removes guards it proves after lowering).
Expr InRange(const Expr& i, int64_t lo, int64_t hi);
// Conjunction of conditions; undefined for an empty list.
Expr AllOf(const std::vector<Expr>& conds);

// Integer division rounding toward zero (C semantics), from the IR's floor division.
Expr TruncDiv(const Expr& a, const Expr& b);
// A constant of dtype t from a user-given value: integers truncate toward zero and saturate to
// the dtype's range (so 300 as uint8 is 255, not a wrapped bit pattern), bool is v != 0.
Expr ScalarConst(DType t, double v);
// Lowest value of a dtype (-inf for floats) and highest (+inf for floats).
Expr Lowest(DType t);
Expr Highest(DType t);

// For the older entry points that return a Tensor: aborts with the status message.
Tensor OrDie(absl::StatusOr<Tensor> t);

}  // namespace tunefarm::ops
