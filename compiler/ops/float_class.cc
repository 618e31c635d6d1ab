#include "compiler/ops/float_class.h"

#include <limits>

namespace tunefarm::ops {

absl::StatusOr<Tensor> IsNaN(DagBuilder& b, const Tensor& x, std::string name) {
  if (auto s = CheckShape("is_nan", "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType("is_nan", "input", x.dtype, DTypeSet::kFloat); !s.ok()) return s;
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    Expr v = x(i);
    return te::Ne(v, v);
  });
}

absl::StatusOr<Tensor> IsInf(DagBuilder& b, const Tensor& x, bool positive, bool negative, std::string name) {
  if (auto s = CheckShape("is_inf", "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType("is_inf", "input", x.dtype, DTypeSet::kFloat); !s.ok()) return s;
  const double inf = std::numeric_limits<double>::infinity();
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    Expr v = x(i);
    Expr pos = te::Eq(v, te::Const(x.dtype, inf)), neg = te::Eq(v, te::Const(x.dtype, -inf));
    if (positive && negative) return te::Or(pos, neg);
    if (positive) return pos;
    if (negative) return neg;
    return te::And(te::Ne(v, v), te::Eq(v, v));  // neither sign asked for: always false
  });
}

}  // namespace tunefarm::ops
