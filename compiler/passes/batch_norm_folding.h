// Batch-norm folding (inference form). With s = scale / sqrt(var + eps):
//   Conv → BatchNormalization, where the Conv's output has no other reader and is not a graph
//   output and the Conv's weight, bias and the BN's statistics are params, becomes one Conv with
//   W' = W · s (per output channel) and b' = (b − mean) · s + B (b = 0 without a bias);
//   any other BatchNormalization with param statistics becomes Mul(x, s) + (B − mean · s), with
//   s and the shift shaped [C, 1, ...] to broadcast over NC... inputs.
// A BatchNormalization whose statistics are not params stays.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::passes {

absl::StatusOr<graph::Graph> FoldBatchNorm(const graph::Graph& g);

}  // namespace tunefarm::passes
