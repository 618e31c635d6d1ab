#include "compiler/ops/det.h"

#include <algorithm>
#include <numeric>

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> Det(DagBuilder& b, const Tensor& x, std::string name) {
  constexpr std::string_view kOp = "det";
  if (auto s = CheckShape(kOp, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "input", x.dtype, DTypeSet::kFloat); !s.ok()) return s;
  const size_t rank = x.shape.size();
  if (rank < 2 || x.shape[rank - 1] != x.shape[rank - 2])
    return OpError(kOp, StrCat("input ", ShapeString(x.shape), " is not [..., n, n]"));
  const int64_t n = x.shape[rank - 1];
  if (n > kMaxDetOrder) return OpError(kOp, StrCat("a ", n, "x", n, " determinant is larger than the ", kMaxDetOrder, "x", kMaxDetOrder, " supported"));
  const Shape batch(x.shape.begin(), x.shape.end() - 2);
  return b.Compute(std::move(name), batch, [&](const Axes& i) {
    std::vector<int64_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    Expr sum;
    do {
      int inversions = 0;
      for (int64_t a = 0; a < n; ++a)
        for (int64_t c = a + 1; c < n; ++c) inversions += perm[a] > perm[c] ? 1 : 0;
      Expr product;
      for (int64_t row = 0; row < n; ++row) {
        std::vector<Expr> at(i.begin(), i.end());
        at.push_back(Expr(row));
        at.push_back(Expr(perm[row]));
        product = product.defined() ? product * x(at) : x(at);
      }
      if (!sum.defined()) sum = inversions % 2 == 0 ? product : te::Const(x.dtype, 0) - product;
      else sum = inversions % 2 == 0 ? sum + product : sum - product;
    } while (std::next_permutation(perm.begin(), perm.end()));
    return sum;
  });
}

}  // namespace tunefarm::ops
