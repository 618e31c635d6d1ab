#include "compiler/ops/scatter.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> ScatterElements(DagBuilder& b, const Tensor& data, const Tensor& indices, const Tensor& updates,
                                       int64_t axis, std::string name) {
  constexpr std::string_view kOp = "scatter_elements";
  if (auto s = CheckShape(kOp, "data", data.shape); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "indices", indices.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "indices", indices.dtype, DTypeSet::kInt); !s.ok()) return s;
  if (updates.dtype != data.dtype) return OpError(kOp, "updates and data differ in dtype");
  if (updates.shape != indices.shape) return OpError(kOp, "updates and indices differ in shape");
  const int rank = static_cast<int>(data.shape.size());
  if (rank == 0 || static_cast<int>(indices.shape.size()) != rank) return OpError(kOp, "indices and data differ in rank");
  auto normalized = NormalizeAxis(kOp, axis, rank);
  if (!normalized.ok()) return normalized.status();
  const int a = *normalized;
  for (int d = 0; d < rank; ++d)
    if (d != a && indices.shape[d] > data.shape[d]) return OpError(kOp, StrCat("indices exceed data on axis ", d));
  const int64_t dim = data.shape[a];

  // For each output element, the last position k along the axis whose index targets it, or -1.
  // Off the axis an output coordinate beyond indices' extent has no writer; reads are clamped.
  Tensor writer = b.Reduce(StrCat(name, ".writer"), te::ReduceKind::kMax, data.shape, {indices.shape[a]},
                           [&](const Axes& i, const Axes& k) {
                             std::vector<Expr> in_range;
                             Axes at(i.begin(), i.end());
                             for (int d = 0; d < rank; ++d) {
                               if (d == a) continue;
                               in_range.push_back(te::Lt(i[d], Expr(indices.shape[d])));
                               at[d] = Clamp(i[d], 0, indices.shape[d] - 1);
                             }
                             at[a] = k[0];
                             Expr raw = te::Cast(te::kIndexType, indices(at));
                             Expr target = te::Select(te::Lt(raw, Expr(0)), raw + dim, raw);
                             in_range.push_back(te::Eq(target, i[a]));
                             return te::Select(AllOf(in_range), k[0], Expr(-1));
                           });
  return b.Compute(std::move(name), data.shape, [&](const Axes& i) {
    Expr k = writer(i);
    Axes at(i.begin(), i.end());
    for (int d = 0; d < rank; ++d) at[d] = Clamp(i[d], 0, indices.shape[d] - 1);
    at[a] = Clamp(k, 0, indices.shape[a] - 1);
    return te::Select(te::Ge(k, Expr(0)), updates(at), data(i));
  });
}

}  // namespace tunefarm::ops
