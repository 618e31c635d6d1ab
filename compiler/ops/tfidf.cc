#include "compiler/ops/tfidf.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> TfIdf(DagBuilder& b, const Tensor& x, const Tensor& tokens, const Tensor& lengths,
                             const Tensor& weights, const TfIdfParams& p, std::string name) {
  constexpr std::string_view kOp = "tfidf";
  if (auto s = CheckShape(kOp, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "input", x.dtype, DTypeSet::kInt); !s.ok()) return s;
  if (x.shape.size() != 1 && x.shape.size() != 2)
    return OpError(kOp, StrCat("input ", ShapeString(x.shape), " is not [C] or [N, C]"));
  if (tokens.dtype != x.dtype || tokens.shape.size() != 2)
    return OpError(kOp, StrCat("tokens ", ShapeString(tokens.shape), " is not [J, G] of the input's dtype"));
  const int64_t J = tokens.shape[0], G = tokens.shape[1];
  if (lengths.dtype != DType::kInt64 || lengths.shape != Shape{J} || weights.dtype != DType::kFloat32 ||
      weights.shape != Shape{J})
    return OpError(kOp, StrCat("lengths and weights must be int64 and float32 [", J, "]"));
  if (p.max_skip < 0 || p.max_skip > 1024) return OpError(kOp, StrCat("max_skip_count ", p.max_skip, " is not in [0, 1024]"));
  const bool batched = x.shape.size() == 2;
  const int64_t C = x.shape.back();
  Shape out_shape = batched ? Shape{x.shape[0], J} : Shape{J};
  auto row = [&](const Axes& i) { return batched ? i[0] : Expr(); };
  auto column = [&](const Axes& i) { return batched ? i[1] : i[0]; };
  auto token = [&](const Axes& i, const Expr& at) {
    Expr clamped = Clamp(at, 0, C - 1);
    return batched ? x({row(i), clamped}) : x({clamped});
  };
  // Occurrences of column j's n-gram starting at position r[1] with stride r[0] + 1.
  Tensor count = b.Reduce(name + ".count", te::ReduceKind::kSum, out_shape, {p.max_skip + 1, C},
                          [&](const Axes& i, const Axes& r) {
                            const Expr j = column(i), n = lengths({j}), stride = r[0] + Expr(int64_t{1});
                            std::vector<Expr> conds = {te::Gt(n, Expr(int64_t{0})),
                                                       te::Lt(r[1] + (n - Expr(int64_t{1})) * stride, Expr(C)),
                                                       te::Or(te::Gt(n, Expr(int64_t{1})), te::Eq(r[0], Expr(int64_t{0})))};
                            for (int64_t k = 0; k < G; ++k)
                              conds.push_back(te::Or(te::Le(n, Expr(k)),
                                                     te::Eq(token(i, r[1] + Expr(k) * stride), tokens({j, Expr(k)}))));
                            return te::Select(AllOf(conds), te::Const(DType::kFloat32, 1), te::Const(DType::kFloat32, 0));
                          });
  return b.Compute(std::move(name), out_shape, [&](const Axes& i) {
    const Expr c = count(i), w = weights({column(i)});
    switch (p.mode) {
      case TfIdfMode::kTf: return c;
      case TfIdfMode::kIdf: return te::Select(te::Gt(c, te::Const(DType::kFloat32, 0)), w, te::Const(DType::kFloat32, 0));
      case TfIdfMode::kTfIdf: return c * w;
    }
    return c;
  });
}

}  // namespace tunefarm::ops
