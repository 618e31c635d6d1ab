// The DAGs the schedule property test explores: each a small odd-sized instance of a kernel the
// tuner will meet, built from the op library.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/matmul.h"
#include "compiler/ops/normalization.h"
#include "compiler/ops/pooling.h"

namespace tunefarm::testing {

struct PropertyCase {
  std::string name;
  std::function<std::shared_ptr<const te::ComputeDag>(std::mt19937_64&)> make;
};

inline int64_t Between(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

inline std::vector<PropertyCase> PropertyCases() {
  using te::DType;
  return {
      {"gemm_bias",
       [](std::mt19937_64& rng) {
         te::DagBuilder b;
         int64_t m = Between(rng, 1, 24), n = Between(rng, 1, 24), k = Between(rng, 1, 20);
         auto a = b.Placeholder("A", DType::kFloat32, {m, k});
         auto w = b.Placeholder("B", DType::kFloat32, {k, n}, true);
         auto bias = b.Placeholder("bias", DType::kFloat32, {n}, true);
         return b.Build({ops::BiasAdd(b, ops::Matmul(b, a, w), bias, 1)});
       }},
      {"conv2d_bias_relu",
       [](std::mt19937_64& rng) {
         te::DagBuilder b;
         int64_t c = Between(rng, 1, 4), h = Between(rng, 3, 9), w = Between(rng, 3, 9), k = Between(rng, 1, 5);
         int64_t r = Between(rng, 0, 1) ? 3 : 1, pad = r == 3 ? Between(rng, 0, 1) : 0;
         ops::Conv2dParams p;
         p.stride = {Between(rng, 1, 2), Between(rng, 1, 2)};
         p.padding = {pad, pad, pad, pad};
         auto x = b.Placeholder("x", DType::kFloat32, {1, c, h, w});
         auto wt = b.Placeholder("w", DType::kFloat32, {k, c, r, r}, true);
         auto bias = b.Placeholder("bias", DType::kFloat32, {k}, true);
         auto conv = ops::Conv2dNchw(b, x, wt, p);
         return b.Build({ops::Relu(b, ops::BiasAdd(b, conv, bias, 1))});
       }},
      {"depthwise_conv2d",
       [](std::mt19937_64& rng) {
         te::DagBuilder b;
         int64_t c = Between(rng, 1, 4), h = Between(rng, 3, 9), w = Between(rng, 3, 9);
         ops::Conv2dParams p;
         p.stride = {Between(rng, 1, 2), Between(rng, 1, 2)};
         p.padding = {1, 1, 1, 1};
         p.groups = c;
         auto x = b.Placeholder("x", DType::kFloat32, {1, c, h, w});
         auto wt = b.Placeholder("w", DType::kFloat32, {c, 1, 3, 3}, true);
         return b.Build({ops::Conv2dNchw(b, x, wt, p)});
       }},
      {"softmax",
       [](std::mt19937_64& rng) {
         te::DagBuilder b;
         auto x = b.Placeholder("x", DType::kFloat32, {Between(rng, 1, 8), Between(rng, 1, 21)});
         return b.Build({ops::Softmax(b, x)});
       }},
      {"layer_norm",
       [](std::mt19937_64& rng) {
         te::DagBuilder b;
         int64_t n = Between(rng, 1, 21);
         auto x = b.Placeholder("x", DType::kFloat32, {Between(rng, 1, 8), n});
         auto gamma = b.Placeholder("gamma", DType::kFloat32, {n}, true);
         auto beta = b.Placeholder("beta", DType::kFloat32, {n}, true);
         return b.Build({ops::LayerNorm(b, x, gamma, beta, 1e-5)});
       }},
      {"pad_pool",
       [](std::mt19937_64& rng) {
         te::DagBuilder b;
         auto x = b.Placeholder("x", DType::kFloat32, {1, Between(rng, 1, 4), Between(rng, 3, 11), Between(rng, 3, 11)});
         ops::Pool2dParams p;
         p.kind = Between(rng, 0, 1) ? ops::PoolKind::kMax : ops::PoolKind::kAvg;
         p.kernel = {3, 3};
         p.stride = {2, 2};
         p.padding = {1, 1, 1, 1};
         p.count_include_pad = Between(rng, 0, 1) == 1;
         return b.Build({ops::Pool2dNchw(b, x, p)});
       }},
  };
}

}  // namespace tunefarm::testing
