#include "compiler/ops/triangular.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> Triangular(DagBuilder& b, const Tensor& x, const TriangularParams& p, std::string name) {
  if (auto s = CheckShape("trilu", "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType("trilu", "input", x.dtype, DTypeSet::kNumeric); !s.ok()) return s;
  if (x.shape.size() < 2) return OpError("trilu", "needs at least 2 axes");
  const size_t rank = x.shape.size();
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    Expr offset = i[rank - 1] - i[rank - 2];  // column - row
    Expr keep = p.upper ? te::Ge(offset, Expr(p.k)) : te::Le(offset, Expr(p.k));
    return te::Select(keep, x(i), ScalarConst(x.dtype, 0));
  });
}

}  // namespace tunefarm::ops
