#include "compiler/ops/resize.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> Resize(DagBuilder& b, const Tensor& x, const std::vector<ResizeAxis>& axes,
                              std::optional<double> extrapolation_value, std::string name) {
  constexpr std::string_view kOp = "resize";
  if (auto s = CheckShape(kOp, "input", x.shape); !s.ok()) return s;
  const int rank = static_cast<int>(x.shape.size());
  Shape shape = x.shape;
  std::vector<bool> seen(rank, false);
  bool weighted = false;
  for (const ResizeAxis& r : axes) {
    if (r.axis < 0 || r.axis >= rank || seen[r.axis]) return OpError(kOp, StrCat("axis ", r.axis, " is invalid or repeated"));
    seen[r.axis] = true;
    if (auto s = CheckDType(kOp, "index table", r.index.dtype, DTypeSet::kInt); !s.ok()) return s;
    if (r.index.shape.size() != 2) return OpError(kOp, StrCat("index table of axis ", r.axis, " is not 2-D"));
    if (r.weight) {
      weighted = true;
      if (r.weight->shape != r.index.shape)
        return OpError(kOp, StrCat("weight table ", ShapeString(r.weight->shape), " of axis ", r.axis,
                                   " differs from its index table ", ShapeString(r.index.shape)));
      if (r.weight->dtype != x.dtype)
        return OpError(kOp, StrCat("weights are ", te::DTypeName(r.weight->dtype), ", the input ", te::DTypeName(x.dtype)));
    } else if (r.index.shape[1] != 1) {
      return OpError(kOp, StrCat("axis ", r.axis, " has ", r.index.shape[1], " taps and no weights"));
    }
    shape[r.axis] = r.index.shape[0];
  }
  if (weighted || extrapolation_value) {
    if (auto s = CheckDType(kOp, "input", x.dtype, DTypeSet::kFloat); !s.ok()) return s;
  }
  if (extrapolation_value && !weighted) return OpError(kOp, "extrapolation needs weight tables");

  return b.Compute(std::move(name), shape, [&](const Axes& o) {
    // Every combination of one tap per resized axis: taps^k terms (k <= rank, taps <= 4).
    std::vector<int64_t> tap(axes.size(), 0);
    Expr sum;
    while (true) {
      std::vector<Expr> at(o.begin(), o.end());
      Expr weight;
      for (size_t d = 0; d < axes.size(); ++d) {
        const ResizeAxis& r = axes[d];
        const Expr o_d = o[r.axis], t = Expr(tap[d]);
        at[r.axis] = Clamp(te::Cast(te::kIndexType, r.index({o_d, t})), 0, x.shape[r.axis] - 1);
        if (r.weight) weight = weight.defined() ? weight * (*r.weight)({o_d, t}) : (*r.weight)({o_d, t});
      }
      Expr term = weight.defined() ? weight * x(at) : x(at);
      sum = sum.defined() ? sum + term : term;
      size_t d = 0;
      for (; d < axes.size(); ++d) {
        if (++tap[d] < axes[d].index.shape[1]) break;
        tap[d] = 0;
      }
      if (d == axes.size()) break;
    }
    if (!extrapolation_value) return sum;
    // Inside when every axis's weights sum to 1 (outside: all 0).
    std::vector<Expr> inside;
    for (const ResizeAxis& r : axes) {
      if (!r.weight) continue;
      Expr total;
      for (int64_t t = 0; t < r.index.shape[1]; ++t) {
        Expr w = (*r.weight)({o[r.axis], Expr(t)});
        total = total.defined() ? total + w : w;
      }
      inside.push_back(te::Gt(total, te::Const(x.dtype, 0.5)));
    }
    return te::Select(AllOf(inside), sum, ScalarConst(x.dtype, *extrapolation_value));
  });
}

}  // namespace tunefarm::ops
