#include "compiler/ops/matmul.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> BatchMatmul(DagBuilder& b, const Tensor& a, const Tensor& w, const MatmulParams& p,
                                   std::string name) {
  constexpr std::string_view kOp = "matmul";
  for (const auto& [t, what] : {std::pair{&a, "a"}, {&w, "b"}}) {
    if (auto s = CheckShape(kOp, what, t->shape); !s.ok()) return s;
    if (t->dtype != DType::kInt32 && t->dtype != DType::kInt64 && !te::IsFloat(t->dtype))
      return OpError(kOp, StrCat(what, " is ", te::DTypeName(t->dtype), ", expected float32, float64, int32 or int64"));
    if (t->shape.empty()) return OpError(kOp, StrCat(what, " is a scalar"));
  }
  if (a.dtype != w.dtype) return OpError(kOp, "operands have different dtypes");
  const bool a_vec = a.shape.size() == 1, b_vec = w.shape.size() == 1;
  const size_t ra = a.shape.size(), rb = w.shape.size();
  const bool ta = p.transpose_a && !a_vec, tb = p.transpose_b && !b_vec;
  int64_t m = a_vec ? 1 : a.shape[ra - (ta ? 1 : 2)];
  int64_t k = a_vec ? a.shape[0] : a.shape[ra - (ta ? 2 : 1)];
  int64_t kb = b_vec ? w.shape[0] : w.shape[rb - (tb ? 1 : 2)];
  int64_t n = b_vec ? 1 : w.shape[rb - (tb ? 2 : 1)];
  if (k != kb)
    return OpError(kOp, StrCat("inner dimensions differ: a ", ShapeString(a.shape), " and b ", ShapeString(w.shape),
                               " give K = ", k, " and ", kb));
  Shape a_batch(a.shape.begin(), a.shape.end() - (a_vec ? 1 : 2));
  Shape b_batch(w.shape.begin(), w.shape.end() - (b_vec ? 1 : 2));
  auto batch = BroadcastShapes(kOp, {a_batch, b_batch});
  if (!batch.ok()) return batch.status();
  Shape out = *batch;
  if (!a_vec) out.push_back(m);
  if (!b_vec) out.push_back(n);
  const size_t nb = batch->size();

  return b.Reduce(std::move(name), te::ReduceKind::kSum, out, {k}, [&](const Axes& i, const Axes& r) {
    Axes batch_axes(i.begin(), i.begin() + nb);
    // Batch dims align right; size-1 dims broadcast.
    auto batch_index = [&](const Shape& own) {
      std::vector<Expr> idx;
      for (size_t d = 0; d < own.size(); ++d) idx.push_back(own[d] == 1 ? Expr(0) : batch_axes[nb - own.size() + d]);
      return idx;
    };
    std::vector<Expr> ia = batch_index(a_batch), ib = batch_index(b_batch);
    Expr mi = a_vec ? Expr() : i[nb];
    Expr ni = b_vec ? Expr() : i[nb + (a_vec ? 0 : 1)];
    if (a_vec) {
      ia.push_back(r[0]);
    } else if (ta) {
      ia.insert(ia.end(), {r[0], mi});
    } else {
      ia.insert(ia.end(), {mi, r[0]});
    }
    if (b_vec) {
      ib.push_back(r[0]);
    } else if (tb) {
      ib.insert(ib.end(), {ni, r[0]});
    } else {
      ib.insert(ib.end(), {r[0], ni});
    }
    return a(ia) * w(ib);
  });
}

absl::StatusOr<Tensor> Dense(DagBuilder& b, const Tensor& data, const Tensor& weight, const std::optional<Tensor>& bias,
                             std::string name) {
  if (weight.shape.size() != 2) return OpError("dense", StrCat("weight must be [N, K], got ", ShapeString(weight.shape)));
  if (data.shape.empty() || data.shape.back() != weight.shape[1])
    return OpError("dense", StrCat("data ", ShapeString(data.shape), " does not end in K = ", weight.shape[1]));
  if (bias && (bias->shape.size() != 1 || bias->shape[0] != weight.shape[0] || bias->dtype != data.dtype))
    return OpError("dense", StrCat("bias must be [", weight.shape[0], "] of the data's dtype"));
  auto mm = BatchMatmul(b, data, weight, MatmulParams{.transpose_b = true},
                        bias ? name + ".matmul" : name);
  if (!mm.ok() || !bias) return mm;
  // Bias on the last axis, a cheap elementwise stage the schedule inlines into the product.
  return b.Compute(std::move(name), mm->shape, [&](const Axes& i) { return (*mm)(i) + (*bias)(i.back()); });
}

Tensor Matmul(DagBuilder& b, const Tensor& a, const Tensor& w, bool transpose_b, std::string name) {
  return OrDie(BatchMatmul(b, a, w, MatmulParams{.transpose_b = transpose_b}, std::move(name)));
}

}  // namespace tunefarm::ops
