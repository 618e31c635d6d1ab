#include "compiler/ops/matmul.h"

#include "compiler/common/check.h"

namespace tunefarm::ops {

Tensor Matmul(DagBuilder& b, const Tensor& a, const Tensor& w, bool transpose_b, std::string name) {
  TF_CHECK(a.shape.size() == 2 && w.shape.size() == 2, "matmul operands must be 2-D");
  int64_t m = a.shape[0], k = a.shape[1];
  int64_t n = transpose_b ? w.shape[0] : w.shape[1];
  TF_CHECK((transpose_b ? w.shape[1] : w.shape[0]) == k, "matmul inner dimensions differ");
  return b.Reduce(std::move(name), te::ReduceKind::kSum, {m, n}, {k},
                  [&](const DagBuilder::Axes& i, const DagBuilder::Axes& r) {
                    te::Expr rhs = transpose_b ? w(i[1], r[0]) : w(r[0], i[1]);
                    return a(i[0], r[0]) * rhs;
                  });
}

}  // namespace tunefarm::ops
