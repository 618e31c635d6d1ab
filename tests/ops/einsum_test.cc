// Einsum against loops written out for each equation: batched matmul, a diagonal, a full sum,
// an outer product, the implicit output order, broadcast "..." axes; and equations that do not
// fit their inputs. Det against Gaussian elimination.
#include <cmath>

#include "compiler/ops/det.h"
#include "compiler/ops/einsum.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

HostTensor RunEinsum(const std::string& equation, const std::vector<HostTensor>& inputs) {
  return RunOp(inputs, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Einsum(b, in, equation); });
}

TEST(Einsum, BatchedMatmulAndItsImplicitForm) {
  HostTensor a = Random(DType::kFloat32, {2, 3, 4}, 1), c = Random(DType::kFloat32, {2, 4, 5}, 2);
  HostTensor want(DType::kFloat32, {2, 3, 5});
  ForEachIndex(want.shape, [&](const std::vector<int64_t>& i) {
    double s = 0;
    for (int64_t k = 0; k < 4; ++k) s += a.at({i[0], i[1], k}) * c.at({i[0], k, i[2]});
    want.at(i) = s;
  });
  EXPECT_TRUE(AllClose(RunEinsum("bij,bjk->bik", {a, c}), want, 1e-5, 1e-5));
  // Implicit: letters used once (b is used twice, so it is summed), alphabetical: "ik".
  HostTensor implicit(DType::kFloat32, {3, 5});
  ForEachIndex(implicit.shape, [&](const std::vector<int64_t>& i) {
    double s = 0;
    for (int64_t bb = 0; bb < 2; ++bb)
      for (int64_t k = 0; k < 4; ++k) s += a.at({bb, i[0], k}) * c.at({bb, k, i[1]});
    implicit.at(i) = s;
  });
  EXPECT_TRUE(AllClose(RunEinsum("bij, bjk", {a, c}), implicit, 1e-5, 1e-5));
}

TEST(Einsum, DiagonalSumOuterProductAndTranspose) {
  HostTensor m = Random(DType::kInt32, {4, 4}, 3, -9, 9), v = Random(DType::kInt32, {3}, 4, -9, 9);
  HostTensor diag(DType::kInt32, {4}), trace(DType::kInt32, {}), outer(DType::kInt32, {3, 4}), t(DType::kInt32, {4, 4});
  for (int64_t i = 0; i < 4; ++i) {
    diag.data[i] = m.at({i, i});
    trace.data[0] += m.at({i, i});
    for (int64_t j = 0; j < 4; ++j) t.at({j, i}) = m.at({i, j});
  }
  ForEachIndex(outer.shape, [&](const std::vector<int64_t>& i) { outer.at(i) = v.at({i[0]}) * m.at({i[1], i[1]}); });
  EXPECT_TRUE(AllClose(RunEinsum("ii->i", {m}), diag));
  EXPECT_TRUE(AllClose(RunEinsum("ii", {m}), trace));
  EXPECT_TRUE(AllClose(RunEinsum("i,jj->ij", {v, m}), outer));
  EXPECT_TRUE(AllClose(RunEinsum("ij->ji", {m}), t));
}

TEST(Einsum, EllipsisAxesBroadcast) {
  // "...ij,...jk->...ik" with batch axes [2,1] and [3]: they broadcast to [2,3].
  HostTensor a = Random(DType::kFloat64, {2, 1, 3, 2}, 5), c = Random(DType::kFloat64, {3, 2, 4}, 6);
  HostTensor want(DType::kFloat64, {2, 3, 3, 4});
  ForEachIndex(want.shape, [&](const std::vector<int64_t>& i) {
    double s = 0;
    for (int64_t k = 0; k < 2; ++k) s += a.at({i[0], 0, i[2], k}) * c.at({i[1], k, i[3]});
    want.at(i) = s;
  });
  EXPECT_TRUE(AllClose(RunEinsum("...ij,...jk->...ik", {a, c}), want, 1e-12, 1e-12));
}

TEST(Einsum, EquationsThatDoNotFitAreErrors) {
  HostTensor m = Random(DType::kFloat32, {3, 4}, 7);
  for (const char* eq : {"ijk->i", "ij,jk->ik", "ii->i", "ij->ik", "ij->ii", "i.j->i", "ij->"}) {
    absl::Status s = BuildStatus({m}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Einsum(b, in, eq); });
    if (std::string(eq) == "ij->") {
      EXPECT_TRUE(s.ok()) << "a full sum is valid: " << s;
      continue;
    }
    EXPECT_FALSE(s.ok()) << eq;
    std::printf("  %s: %s\n", eq, std::string(s.message()).c_str());
  }
}

// Determinant by elimination with partial pivoting: a different algorithm from the op's.
double EliminationDet(std::vector<double> a, int64_t n) {
  double det = 1;
  for (int64_t col = 0; col < n; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
    if (a[pivot * n + col] == 0) return 0;
    if (pivot != col) {
      for (int64_t k = 0; k < n; ++k) std::swap(a[col * n + k], a[pivot * n + k]);
      det = -det;
    }
    det *= a[col * n + col];
    for (int64_t r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / a[col * n + col];
      for (int64_t k = col; k < n; ++k) a[r * n + k] -= f * a[col * n + k];
    }
  }
  return det;
}

TEST(Det, EveryOrderUpToTheLimitAgainstElimination) {
  for (int64_t n = 1; n <= kMaxDetOrder; ++n) {
    HostTensor x = Random(DType::kFloat64, {3, n, n}, 100 + n, -2, 2);
    HostTensor want(DType::kFloat64, {3});
    for (int64_t b = 0; b < 3; ++b)
      want.data[b] = EliminationDet(std::vector<double>(x.data.begin() + b * n * n, x.data.begin() + (b + 1) * n * n), n);
    HostTensor got = RunOp({x}, [](DagBuilder& b, const std::vector<Tensor>& in) { return Det(b, in[0]); });
    EXPECT_TRUE(AllClose(got, want, 1e-9, 1e-9)) << "n " << n;
  }
  HostTensor big(DType::kFloat32, {6, 6});
  absl::Status s = BuildStatus({big}, [](DagBuilder& b, const std::vector<Tensor>& in) { return Det(b, in[0]); });
  EXPECT_NE(s.message().find("larger than the 5x5 supported"), std::string::npos) << s;
}

}  // namespace
}  // namespace tunefarm::ops::testing
