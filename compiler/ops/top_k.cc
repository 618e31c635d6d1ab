#include "compiler/ops/top_k.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<std::pair<Tensor, Tensor>> TopK(DagBuilder& b, const Tensor& x, const TopKParams& p, std::string name) {
  constexpr std::string_view kOp = "top_k";
  if (auto s = CheckShape(kOp, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "input", x.dtype, DTypeSet::kNumeric); !s.ok()) return s;
  if (x.shape.empty()) return OpError(kOp, "input is a scalar");
  auto normalized = NormalizeAxis(kOp, p.axis, static_cast<int>(x.shape.size()));
  if (!normalized.ok()) return normalized.status();
  const int a = *normalized;
  const int64_t extent = x.shape[a];
  if (p.k < 1 || p.k > extent) return OpError(kOp, StrCat("k ", p.k, " is outside [1, ", extent, "]"));

  auto at = [&](const Axes& i, const Expr& position) {
    Axes moved(i.begin(), i.end());
    moved[a] = position;
    return moved;
  };
  // NaN orders above every number and equal to itself, as NumPy sorts it; without that a NaN
  // would be neither before nor after anything and its rank would collide with another's.
  auto is_nan = [](const Expr& v) { return te::Ne(v, v); };
  auto greater = [&](const Expr& u, const Expr& v) { return te::Or(te::Gt(u, v), te::And(is_nan(u), te::Not(is_nan(v)))); };
  auto same = [&](const Expr& u, const Expr& v) { return te::Or(te::Eq(u, v), te::And(is_nan(u), is_nan(v))); };
  // rank = how many elements of the row come before this one.
  Tensor rank = b.Reduce(StrCat(name, ".rank"), te::ReduceKind::kSum, x.shape, {extent}, [&](const Axes& i, const Axes& r) {
    Expr other = x(at(i, r[0])), self = x(i);
    Expr better = p.largest ? greater(other, self) : greater(self, other);
    Expr before = te::Or(better, te::And(same(other, self), te::Lt(r[0], i[a])));
    return te::Select(before, te::IntImm(DType::kInt64, 1), te::IntImm(DType::kInt64, 0));
  });
  Shape shape = x.shape;
  shape[a] = p.k;
  Tensor indices = b.Reduce(StrCat(name, ".indices"), te::ReduceKind::kMax, shape, {extent}, [&](const Axes& j, const Axes& r) {
    return te::Select(te::Eq(rank(at(j, r[0])), te::Cast(DType::kInt64, j[a])), te::Cast(DType::kInt64, r[0]),
                      te::IntImm(DType::kInt64, -1));
  });
  // Gathered through the index rather than max-reduced, so a NaN value survives.
  Tensor values = b.Compute(StrCat(name, ".values"), shape,
                            [&](const Axes& j) { return x(at(j, Clamp(indices(j), 0, extent - 1))); });
  return std::make_pair(values, indices);
}

}  // namespace tunefarm::ops
