#include "compiler/ops/cumulative.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> CumulativeSum(DagBuilder& b, const Tensor& x, const CumulativeParams& p, std::string name) {
  const std::string_view op = "cumsum";
  if (auto s = CheckShape(op, "input", x.shape); !s.ok()) return s;
  if (!te::IsFloat(x.dtype) && x.dtype != DType::kInt32 && x.dtype != DType::kInt64 && x.dtype != DType::kUInt32 &&
      x.dtype != DType::kUInt64)
    return OpError(op, StrCat("input is ", te::DTypeName(x.dtype), ", expected a float or 32/64-bit integer"));
  auto axis = NormalizeAxis(op, p.axis, static_cast<int>(x.shape.size()));
  if (!axis.ok()) return axis.status();
  const int a = *axis;
  return b.Reduce(std::move(name), te::ReduceKind::kSum, x.shape, {x.shape[a]}, [&](const Axes& i, const Axes& r) {
    std::vector<Expr> at(i.begin(), i.end());
    at[a] = r[0];
    Expr j = r[0], k = i[a];
    Expr in_range = p.reverse ? (p.exclusive ? te::Gt(j, k) : te::Ge(j, k)) : (p.exclusive ? te::Lt(j, k) : te::Le(j, k));
    return te::Select(in_range, x(at), ScalarConst(x.dtype, 0));
  });
}

}  // namespace tunefarm::ops
