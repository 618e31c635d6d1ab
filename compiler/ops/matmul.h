// Matrix multiplication: dense (a fully connected layer), matmul and batched matmul with
// optionally transposed operands. float32, float64, int32, int64 (integers wrap).
#pragma once

#include <optional>
#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct MatmulParams {
  bool transpose_a = false;  // a is [..., K, M]
  bool transpose_b = false;  // b is [..., N, K]
};

// Numpy matmul: a [..., M, K] x b [..., K, N] -> [..., M, N], batch dims broadcast. A 1-D a is a
// row [1, K] and a 1-D b a column [K, 1] whose unit dim is dropped from the result (transpose
// flags do not apply to 1-D operands).
absl::StatusOr<Tensor> BatchMatmul(DagBuilder& b, const Tensor& a, const Tensor& w, const MatmulParams& p,
                                   std::string name = "matmul");

// data [..., K] x weight [N, K] -> [..., N], plus bias [N] as a second stage when given.
absl::StatusOr<Tensor> Dense(DagBuilder& b, const Tensor& data, const Tensor& weight,
                             const std::optional<Tensor>& bias, std::string name = "dense");

// C[m, n] = sum_k A[m, k] * B[k, n] (B[n, k] when transpose_b), for callers with trusted
// shapes (tests, benchmarks): aborts on bad shapes.
Tensor Matmul(DagBuilder& b, const Tensor& a, const Tensor& w, bool transpose_b = false,
              std::string name = "matmul");

}  // namespace tunefarm::ops
