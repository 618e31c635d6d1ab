// Winograd F(m x m, 3 x 3): the transform matrices against 1-D correlation, the compile-time
// weight transform, and the four-stage conv against the direct NCHW reference.
#include <random>

#include "compiler/ops/winograd.h"
#include "tests/ops/conv_reference.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

// y = A^T [(G g) . (B^T d)] is the correlation y[i] = sum_r d[i + r] g[r] (Lavin & Gray, eq. 1).
TEST(Winograd, MatricesComputeOneDimensionalCorrelation) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> value(-1, 1);
  for (int m : {2, 4}) {
    const WinogradMatrices& f = *WinogradF(m);
    ASSERT_EQ(f.alpha, m + 2);
    std::vector<double> d(f.alpha), g(3);
    for (double& v : d) v = value(rng);
    for (double& v : g) v = value(rng);
    std::vector<double> product(f.alpha);
    for (int e = 0; e < f.alpha; ++e) {
      double gg = 0, bd = 0;
      for (int r = 0; r < 3; ++r) gg += f.g[e * 3 + r] * g[r];
      for (int a = 0; a < f.alpha; ++a) bd += f.b_t[e * f.alpha + a] * d[a];
      product[e] = gg * bd;
    }
    for (int i = 0; i < m; ++i) {
      double got = 0, want = 0;
      for (int e = 0; e < f.alpha; ++e) got += f.a_t[i * f.alpha + e] * product[e];
      for (int r = 0; r < 3; ++r) want += d[i + r] * g[r];
      EXPECT_NEAR(got, want, 1e-12) << "F(" << m << ", 3), output " << i;
    }
  }
  EXPECT_EQ(WinogradF(3), nullptr);
}

TEST(Winograd, AppliesOnlyToUngroupedThreeByThreeStrideOne) {
  EXPECT_TRUE(WinogradApplies(3, 3, {1, 1}, {1, 1}, 1));
  EXPECT_FALSE(WinogradApplies(3, 3, {2, 2}, {1, 1}, 1));
  EXPECT_FALSE(WinogradApplies(3, 3, {1, 1}, {2, 1}, 1));
  EXPECT_FALSE(WinogradApplies(3, 3, {1, 1}, {1, 1}, 2));
  EXPECT_FALSE(WinogradApplies(1, 1, {1, 1}, {1, 1}, 1));
}

struct WinogradCase {
  int64_t n, c, h, w, k;
  std::array<int64_t, 4> padding;
  int64_t x, y;
};

TEST(Winograd, MatchesTheDirectConvolution) {
  // Whole and partial last tiles, asymmetric and no padding, one block or several.
  const std::vector<WinogradCase> cases = {
      {1, 8, 7, 7, 8, {1, 1, 1, 1}, 4, 4},  {1, 4, 8, 8, 8, {1, 1, 1, 1}, 4, 8},
      {2, 8, 6, 5, 4, {1, 0, 0, 1}, 8, 4},  {1, 4, 9, 10, 4, {0, 0, 0, 0}, 2, 2},
      {1, 16, 5, 6, 16, {2, 1, 1, 2}, 16, 16},
  };
  uint64_t seed = 70;
  for (int m : {2, 4}) {
    for (const WinogradCase& c : cases) {
      HostTensor x = Random(DType::kFloat32, {c.n, c.c, c.h, c.w}, seed++);
      HostTensor w = Random(DType::kFloat32, {c.k, c.c, 3, 3}, seed++);
      const Conv2dParams direct{{1, 1}, c.padding, {1, 1}, 1};
      HostTensor want = PackReference(Conv2dReference(x, w, direct), c.y);
      const int alpha = m + 2;
      HostTensor u(DType::kFloat32, {alpha, alpha, c.k / c.y, c.c / c.x, c.x, c.y});
      const std::vector<float> transformed =
          TransformWinogradWeight(std::vector<float>(w.data.begin(), w.data.end()), c.k, c.c, m, c.x, c.y);
      u.data.assign(transformed.begin(), transformed.end());
      HostTensor got = RunOp({PackReference(x, c.x), u}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Conv2dWinogradNchwc(b, in[0], in[1], WinogradParams{m, c.padding});
      });
      // F(4, 3)'s transforms have entries up to 8: a few float32 roundings more than direct.
      EXPECT_TRUE(AllClose(got, want, m == 2 ? 1e-5 : 5e-5, 1e-4))
          << "F(" << m << ", 3) x " << ShapeString(x.shape) << " k " << c.k << " blocks " << c.x << "/" << c.y;
    }
  }
}

TEST(Winograd, RejectsAWeightThatIsNotTheTransform) {
  EXPECT_TRUE(absl::IsInvalidArgument(
      BuildStatus({HostTensor(DType::kFloat32, {1, 1, 6, 6, 4}), HostTensor(DType::kFloat32, {6, 6, 1, 1, 4, 4})},
                  [](DagBuilder& b, const std::vector<Tensor>& in) {
                    return Conv2dWinogradNchwc(b, in[0], in[1], WinogradParams{2, {1, 1, 1, 1}});  // F(2) is 4x4
                  })));
  EXPECT_TRUE(absl::IsInvalidArgument(
      BuildStatus({HostTensor(DType::kFloat32, {1, 1, 6, 6, 4}), HostTensor(DType::kFloat32, {4, 4, 1, 1, 4, 4})},
                  [](DagBuilder& b, const std::vector<Tensor>& in) {
                    return Conv2dWinogradNchwc(b, in[0], in[1], WinogradParams{3, {1, 1, 1, 1}});
                  })));
}

}  // namespace
}  // namespace tunefarm::ops::testing
