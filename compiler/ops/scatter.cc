#include "compiler/ops/scatter.h"

#include "common/strings.h"

namespace tunefarm::ops {
namespace {

// What every scatter needs of its operands: valid shapes, integer indices, updates of data's dtype.
absl::Status CheckScatterOperands(std::string_view op, const Tensor& data, const Tensor& indices, const Tensor& updates) {
  if (auto s = CheckShape(op, "data", data.shape); !s.ok()) return s;
  if (auto s = CheckShape(op, "indices", indices.shape); !s.ok()) return s;
  if (auto s = CheckDType(op, "indices", indices.dtype, DTypeSet::kInt); !s.ok()) return s;
  if (updates.dtype != data.dtype) return OpError(op, "updates and data differ in dtype");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> ScatterElements(DagBuilder& b, const Tensor& data, const Tensor& indices, const Tensor& updates,
                                       int64_t axis, std::string name) {
  constexpr std::string_view kOp = "scatter_elements";
  if (auto s = CheckScatterOperands(kOp, data, indices, updates); !s.ok()) return s;
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

absl::StatusOr<Tensor> ScatterND(DagBuilder& b, const Tensor& data, const Tensor& indices, const Tensor& updates,
                                 ScatterReduction reduction, std::string name) {
  constexpr std::string_view kOp = "scatter_nd";
  if (auto s = CheckScatterOperands(kOp, data, indices, updates); !s.ok()) return s;
  const int64_t r = static_cast<int64_t>(data.shape.size()), q = static_cast<int64_t>(indices.shape.size());
  if (q < 1 || r < 1) return OpError(kOp, "data or indices is a scalar");
  const int64_t k = indices.shape.back();
  if (k < 1 || k > r) return OpError(kOp, StrCat("indices' last extent ", k, " does not fit data of rank ", r));
  const Shape rows(indices.shape.begin(), indices.shape.end() - 1);
  // Indices of rank 1 are one update: reduce over one row, which reads no index axis.
  const Shape reduce_rows = rows.empty() ? Shape{1} : rows;
  auto row_of = [&](const Axes& u) { return rows.empty() ? std::vector<Expr>{} : std::vector<Expr>(u.begin(), u.end()); };
  Shape want = rows;
  want.insert(want.end(), data.shape.begin() + k, data.shape.end());
  if (updates.shape != want)
    return OpError(kOp, StrCat("updates ", ShapeString(updates.shape), " should be ", ShapeString(want)));

  // Does update row u target the output point p (its first k coordinates)?
  auto targets = [&](const Axes& u, const Axes& p) {
    std::vector<Expr> hit;
    std::vector<Expr> at = row_of(u);
    for (int64_t j = 0; j < k; ++j) {
      at.push_back(Expr(j));
      Expr raw = te::Cast(te::kIndexType, indices(at));
      at.pop_back();
      hit.push_back(te::Eq(te::Select(te::Lt(raw, Expr(0)), raw + data.shape[j], raw), p[j]));
    }
    return AllOf(hit);
  };
  auto update_at = [&](const std::vector<Expr>& u, const Axes& p) {
    std::vector<Expr> at = u;
    at.insert(at.end(), p.begin() + k, p.end());
    return updates(at);
  };

  if (reduction == ScatterReduction::kNone) {
    // The last row (row-major, flattened) that writes each of data's first-k points, or -1.
    Shape strides(reduce_rows.size(), 1);
    for (int64_t d = static_cast<int64_t>(reduce_rows.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * reduce_rows[d + 1];
    const Shape head(data.shape.begin(), data.shape.begin() + k);
    Tensor writer = b.Reduce(StrCat(name, ".writer"), te::ReduceKind::kMax, head, reduce_rows, [&](const Axes& p, const Axes& u) {
      Expr flat = Expr(int64_t{0});
      for (size_t d = 0; d < u.size(); ++d) flat = flat + u[d] * strides[d];
      return te::Select(targets(u, p), flat, Expr(-1));
    });
    return b.Compute(std::move(name), data.shape, [&](const Axes& p) {
      Expr w = writer(std::vector<Expr>(p.begin(), p.begin() + k));
      Expr row = Clamp(w, 0, NumElements(reduce_rows) - 1);
      std::vector<Expr> u;
      for (size_t d = 0; d < rows.size(); ++d) u.push_back((row / strides[d]) % rows[d]);
      return te::Select(te::Ge(w, Expr(0)), update_at(u, p), data(p));
    });
  }
  te::ReduceKind kind = te::ReduceKind::kSum;
  Expr identity = te::Const(data.dtype, 0);
  switch (reduction) {
    case ScatterReduction::kMul: kind = te::ReduceKind::kProd; identity = te::Const(data.dtype, 1); break;
    case ScatterReduction::kMax: kind = te::ReduceKind::kMax; identity = Lowest(data.dtype); break;
    case ScatterReduction::kMin: kind = te::ReduceKind::kMin; identity = Highest(data.dtype); break;
    default: break;
  }
  Tensor combined = b.Reduce(StrCat(name, ".updates"), kind, data.shape, reduce_rows, [&](const Axes& p, const Axes& u) {
    return te::Select(targets(u, p), update_at(row_of(u), p), identity);
  });
  return b.Compute(std::move(name), data.shape, [&](const Axes& p) {
    return te::ReduceCombine(kind, data(p), combined(p));
  });
}

}  // namespace tunefarm::ops
