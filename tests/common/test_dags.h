// DAGs and references shared by the compiler tests.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "compiler/ops/binary.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/matmul.h"
#include "compiler/te/compute_dag.h"

namespace tunefarm::testing {

// C = A[m,k] * B[k,n], B constant: the search tests' GEMM.
inline std::shared_ptr<const te::ComputeDag> GemmDag(int64_t m, int64_t n, int64_t k) {
  te::DagBuilder b;
  auto a = b.Placeholder("A", te::DType::kFloat32, {m, k});
  auto w = b.Placeholder("B", te::DType::kFloat32, {k, n}, true);
  return b.Build({ops::Matmul(b, a, w, false, "C")});
}

// conv2d NCHW 3x3 pad 1 + bias of a placeholder 1 x c x hw x hw input, k filters, weights constant.
inline te::DagBuilder::Tensor ConvBias(te::DagBuilder& b, int64_t c, int64_t hw, int64_t k) {
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, c, hw, hw});
  auto w = b.Placeholder("w", te::DType::kFloat32, {k, c, 3, 3}, true);
  auto bias = b.Placeholder("bias", te::DType::kFloat32, {k}, true);
  return ops::BiasAdd(b, ops::Conv2dNchw(b, x, w, p), bias, 1);
}

// relu(conv2d NCHW 3x3 pad 1 + bias): 1 x c x hw x hw input, k filters, weights constant.
inline std::shared_ptr<const te::ComputeDag> ConvBiasReluDag(int64_t c, int64_t hw, int64_t k) {
  te::DagBuilder b;
  return b.Build({ops::Relu(b, ConvBias(b, c, hw, k))});
}

// ResNet's residual block tail: relu(conv 3x3 pad 1 (c -> c channels, 1 x c x hw x hw) + bias
// + skip). The Add is ONNX's broadcasting one, which reads the 1-long batch dimension at 0
// (ops::BroadcastRead), as the graph compiler builds it.
inline std::shared_ptr<const te::ComputeDag> ResidualConvDag(int64_t c, int64_t hw) {
  te::DagBuilder b;
  auto conv = ConvBias(b, c, hw, c);
  auto skip = b.Placeholder("skip", te::DType::kFloat32, {1, c, hw, hw});
  return b.Build({ops::Relu(b, ops::Binary(b, conv, skip, ops::BinaryOp::kAdd, "residual").value())});
}

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

// conv2d NCHW 3x3 pad 1 of a 1 x c x hw x hw input in `groups` groups (group g's outputs read
// input channels [g*c/groups, (g+1)*c/groups)), k filters, weights constant; no bias.
inline std::shared_ptr<const te::ComputeDag> GroupedConvDag(int64_t c, int64_t k, int64_t groups, int64_t hw) {
  te::DagBuilder b;
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  p.groups = groups;
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, c, hw, hw});
  auto w = b.Placeholder("w", te::DType::kFloat32, {k, c / groups, 3, 3}, true);
  return b.Build({ops::Conv2dNchw(b, x, w, p)});
}

// conv2d NCHW 1x1 (a pointwise conv) of a 1 x c x hw x hw input, k filters, weights constant.
inline std::shared_ptr<const te::ComputeDag> PointwiseConvDag(int64_t c, int64_t k, int64_t hw) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, c, hw, hw});
  auto w = b.Placeholder("w", te::DType::kFloat32, {k, c, 1, 1}, true);
  return b.Build({ops::Conv2dNchw(b, x, w, ops::Conv2dParams{})});
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

// y[b, i] = sum_r pad(x)[b, i + r] * w[r] + 1, with pad(x) zero-padded by `pad` on both sides:
// a producer (the pad stage) read with a halo.
inline std::shared_ptr<const te::ComputeDag> PaddedConv1dDag(int64_t batch, int64_t n, int64_t r, int64_t pad) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {batch, n});
  auto w = b.Placeholder("w", te::DType::kFloat32, {r}, true);
  auto p = b.Compute("pad", {batch, n + 2 * pad}, [&](const te::DagBuilder::Axes& i) {
    te::Expr inside = te::And(te::Ge(i[1], pad), te::Lt(i[1], n + pad));
    te::Expr clamped = te::Min(te::Max(i[1] - pad, 0), n - 1);
    return te::Select(inside, x(i[0], clamped), te::Const(te::DType::kFloat32, 0));
  });
  int64_t out_n = n + 2 * pad - r + 1;
  auto c = b.Reduce("conv", te::ReduceKind::kSum, {batch, out_n}, {r},
                    [&](const te::DagBuilder::Axes& i, const te::DagBuilder::Axes& k) {
                      return p(i[0], i[1] + k[0]) * w(k[0]);
                    });
  auto y = b.Compute("y", {batch, out_n}, [&](const te::DagBuilder::Axes& i) {
    return c(i) + te::Const(te::DType::kFloat32, 1);
  });
  return b.Build({y});
}

inline std::vector<float> PaddedConv1dReference(const std::vector<float>& x, const std::vector<float>& w,
                                                int64_t batch, int64_t n, int64_t r, int64_t pad) {
  int64_t out_n = n + 2 * pad - r + 1;
  std::vector<float> y(batch * out_n);
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < out_n; ++i) {
      double acc = 0;
      for (int64_t k = 0; k < r; ++k) {
        int64_t src = i + k - pad;
        if (src >= 0 && src < n) acc += static_cast<double>(x[bi * n + src]) * w[k];
      }
      y[bi * out_n + i] = static_cast<float>(acc) + 1.f;
    }
  return y;
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
