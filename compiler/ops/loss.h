// Loss functions of inference graphs (ONNX NegativeLogLikelihoodLoss; SoftmaxCrossEntropyLoss is
// a LogSoftmax followed by this, built by its ONNX converter).
#pragma once

#include <optional>
#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

enum class LossReduction { kNone, kSum, kMean };

struct NllLossParams {
  LossReduction reduction = LossReduction::kMean;
  std::optional<int64_t> ignore_index;  // targets equal to it add nothing, not even weight
};

// input [N, C, d1..dk] (log-probabilities), target [N, d1..dk] (class indices), weight [C] or
// null (all ones). Per element: loss = -input[n, t, d..] * weight[t] with t = target[n, d..], 0
// where t is ignore_index. kNone returns that [N, d1..dk] tensor, kSum its sum and kMean its sum
// divided by the sum of the weights of the targets not ignored (a 0-d tensor). Targets outside
// [0, C) are clamped into it (ONNX leaves them undefined; clamping keeps reads in bounds).
absl::StatusOr<Tensor> NegativeLogLikelihoodLoss(DagBuilder& b, const Tensor& input, const Tensor& target,
                                                 const Tensor* weight, const NllLossParams& p,
                                                 std::string name = "nll_loss");

}  // namespace tunefarm::ops
