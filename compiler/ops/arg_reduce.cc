#include "compiler/ops/arg_reduce.h"

#include <optional>

#include "common/strings.h"
#include "compiler/ops/reduce.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> ArgReduce(DagBuilder& b, const Tensor& x, const ArgReduceParams& p, std::string name) {
  const std::string_view op = p.max ? "argmax" : "argmin";
  if (name.empty()) name = std::string(op);
  if (auto s = CheckShape(op, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(op, "input", x.dtype, DTypeSet::kNumeric); !s.ok()) return s;
  const int rank = static_cast<int>(x.shape.size());
  auto axis = NormalizeAxis(op, p.axis, rank);
  if (!axis.ok()) return axis.status();
  const int a = *axis;
  if (x.shape[a] == 0) return OpError(op, "the axis is empty, so it has no index");

  ReduceParams extreme_params{p.max ? ReduceOp::kMax : ReduceOp::kMin, {a}, /*keepdims=*/true};
  auto extreme = Reduce(b, x, extreme_params, StrCat(name, ".extreme"));
  if (!extreme.ok()) return extreme.status();

  // The input point for a point i of a keepdims-shaped tensor and axis index r.
  auto input_point = [&](const Axes& i, Expr r) {
    std::vector<Expr> at(i.begin(), i.end());
    at[a] = std::move(r);
    return at;
  };
  // Max and min skip NaN, so whether the axis holds one is a stage of its own (floats only).
  const bool is_float = te::IsFloat(x.dtype);
  std::optional<Tensor> has_nan;
  if (is_float) {
    has_nan = b.Reduce(StrCat(name, ".has_nan"), te::ReduceKind::kMax, extreme->shape, {x.shape[a]},
                       [&](const Axes& i, const Axes& r) {
                         Expr v = x(input_point(i, r[0]));
                         return te::Select(te::Ne(v, v), Expr(int64_t{1}), Expr(int64_t{0}));
                       });
  }

  Shape shape;
  for (int d = 0; d < rank; ++d) {
    if (d != a) shape.push_back(x.shape[d]);
    else if (p.keepdims) shape.push_back(1);
  }
  auto index_of_extreme = [&](const Axes& i, const Axes& r) {
    // i without keepdims lacks the axis: put a 0 there to read the keepdims-shaped stages.
    std::vector<Expr> top;
    for (int d = 0, out_axis = 0; d < rank; ++d) {
      if (d == a) {
        top.push_back(Expr(int64_t{0}));
        if (p.keepdims) ++out_axis;
      } else {
        top.push_back(i[out_axis++]);
      }
    }
    Expr value = x(input_point(top, r[0]));
    Expr hit = te::Eq(value, (*extreme)(top));
    if (is_float) hit = te::Select(te::Ne((*has_nan)(top), Expr(int64_t{0})), te::Ne(value, value), hit);
    return te::Select(hit, r[0], p.select_last ? Lowest(DType::kInt64) : Highest(DType::kInt64));
  };
  return b.Reduce(std::move(name), p.select_last ? te::ReduceKind::kMax : te::ReduceKind::kMin, shape, {x.shape[a]},
                  index_of_extreme);
}

absl::StatusOr<Tensor> Hardmax(DagBuilder& b, const Tensor& x, int64_t axis, std::string name) {
  if (auto s = CheckDType("hardmax", "input", x.dtype, DTypeSet::kFloat); !s.ok()) return s;
  auto first = ArgReduce(b, x, ArgReduceParams{true, axis, /*keepdims=*/true, false}, StrCat(name, ".argmax"));
  if (!first.ok()) return first.status();
  const int a = *NormalizeAxis("hardmax", axis, static_cast<int>(x.shape.size()));  // ArgReduce checked it
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    std::vector<Expr> at(i.begin(), i.end());
    at[a] = Expr(int64_t{0});
    return te::Select(te::Eq(i[a], (*first)(at)), ScalarConst(x.dtype, 1), ScalarConst(x.dtype, 0));
  });
}

}  // namespace tunefarm::ops
