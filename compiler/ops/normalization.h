// Softmax, log-softmax, layer normalization and batch normalization (inference), as several
// stages (reductions and elementwise) so schedules can fuse and place them. float32, float64.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct SoftmaxParams {
  int64_t axis = -1;  // ONNX opset 13: one axis, may be negative
};
// exp(x - max) / sum(exp(x - max)) along the axis: stages .max, .exp, .sum, then the output.
absl::StatusOr<Tensor> Softmax(DagBuilder& b, const Tensor& x, const SoftmaxParams& p, std::string name = "softmax");
// x - max - log(sum(exp(x - max))) along the axis: stages .max, .sum, then the output.
absl::StatusOr<Tensor> LogSoftmax(DagBuilder& b, const Tensor& x, const SoftmaxParams& p,
                                  std::string name = "log_softmax");

struct LayerNormParams {
  int64_t axis = -1;  // normalises over axes [axis, rank) (ONNX LayerNormalization)
  double epsilon = 1e-5;
};
// (x - mean) / sqrt(var + eps) * gamma + beta; gamma and beta have shape x.shape[axis:].
// Stages .mean and .var (two-pass variance), then the output.
absl::StatusOr<Tensor> LayerNorm(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                 const LayerNormParams& p, std::string name = "layer_norm");

// Instance normalization over [N, C, D...]: each (n, c) slice normalized over its spatial axes,
// then scaled and shifted per channel ([C] gamma, beta): LayerNorm's stages with per-channel
// parameters (ONNX InstanceNormalization).
absl::StatusOr<Tensor> InstanceNorm(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                    double epsilon, std::string name = "instance_norm");

struct LrnParams {
  double alpha = 1e-4, beta = 0.75, bias = 1.0;
  int64_t size = 1;  // channels in the window: floor((size-1)/2) before, ceil((size-1)/2) after
};
// Local response normalization across channels of [N, C, D...] (ONNX LRN):
// x / (bias + alpha / size * sum of x^2 over the window) ^ beta; stage .sqsum, then the output.
absl::StatusOr<Tensor> LocalResponseNorm(DagBuilder& b, const Tensor& x, const LrnParams& p, std::string name = "lrn");

struct BatchNormParams {
  double epsilon = 1e-5;
};
// Inference batch norm over [N, C, D...] with per-channel [C] gamma, beta, mean, var:
// (x - mean) * gamma / sqrt(var + eps) + beta. The per-channel scale gamma / sqrt(var + eps) is
// its own stage (".scale", C elements), so the per-element work is one multiply-add.
absl::StatusOr<Tensor> BatchNormInference(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                          const Tensor& mean, const Tensor& var, const BatchNormParams& p,
                                          std::string name = "batch_norm");

// --- Short forms over the last axis for callers with trusted shapes: abort on bad shapes. ---
Tensor Softmax(DagBuilder& b, const Tensor& x, std::string name = "softmax");
Tensor LayerNorm(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps,
                 std::string name = "layer_norm");

}  // namespace tunefarm::ops
