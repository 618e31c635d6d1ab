// DAGs and references shared by the compiler tests.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "compiler/ops/elementwise.h"
#include "compiler/ops/matmul.h"
#include "compiler/te/compute_dag.h"

namespace tunefarm::testing {

// C = A[m,k] * B[k,n] + bias[n]
inline std::shared_ptr<const te::ComputeDag> GemmBiasDag(int64_t m, int64_t n, int64_t k) {
  te::DagBuilder b;
  auto a = b.Placeholder("A", te::DType::kFloat32, {m, k});
  auto w = b.Placeholder("B", te::DType::kFloat32, {k, n}, /*is_constant=*/true);
  auto bias = b.Placeholder("bias", te::DType::kFloat32, {n}, true);
  auto c = ops::Matmul(b, a, w, false, "C");
  auto out = ops::BiasAdd(b, c, bias, 1, "out");
  return b.Build({out});
}

// out = relu(x * y + x)  over [rows, cols], three stages
inline std::shared_ptr<const te::ComputeDag> ElementwiseChainDag(int64_t rows, int64_t cols) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {rows, cols});
  auto y = b.Placeholder("y", te::DType::kFloat32, {rows, cols});
  auto p = ops::Mul(b, x, y, "p");
  auto s = ops::Add(b, p, x, "s");
  auto r = ops::Relu(b, s, "r");
  return b.Build({r});
}

inline std::vector<float> RandomFloats(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

inline std::vector<float> GemmBiasReference(const std::vector<float>& a, const std::vector<float>& w,
                                            const std::vector<float>& bias, int64_t m, int64_t n, int64_t k) {
  std::vector<float> c(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t r = 0; r < k; ++r) acc += static_cast<double>(a[i * k + r]) * w[r * n + j];
      c[i * n + j] = static_cast<float>(acc) + bias[j];
    }
  return c;
}

inline std::vector<float> ElementwiseChainReference(const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> r(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float s = x[i] * y[i] + x[i];
    r[i] = s > 0 ? s : 0;
  }
  return r;
}

inline float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  float m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return a.size() == b.size() ? m : 1e30f;
}

}  // namespace tunefarm::testing
