// The training loss of the pack-sum model (Ansor's pack_sum_square_error), given to XGBoost as a
// custom gradient: for program i with row-score sum s_i, label y_i and weight w_i,
//   loss_i = w_i / 2 * (s_i - y_i)^2,
// so every row of program i gets gradient w_i * (s_i - y_i) and hessian w_i (the diagonal of
// the true hessian; rows of one program share it).
//
// The weight is the label itself, clamped below (Ansor): labels are normalized throughputs in
// [0, 1], so the model fits the good programs of a task, the ones the search keeps, more
// closely than the slow tail. The clamp keeps invalid and very slow programs (label ~0) in the
// fit, so that they are pushed towards a low score rather than ignored.
#pragma once

#include <span>
#include <vector>

#include "tuner/cost_model/pack_sum.h"

namespace tunefarm::tuner {

// max(label, min_weight) per program.
std::vector<float> LabelWeights(std::span<const float> labels, float min_weight);

// Row gradients and hessians of the loss above; `row_scores` are the model's current margins.
void PackSumSquareErrorGradients(const PackedRows& packed, std::span<const float> row_scores,
                                 std::span<const float> labels, std::span<const float> weights,
                                 std::vector<float>* grad, std::vector<float>* hess);

// sqrt(sum_i w_i (s_i - y_i)^2 / sum_i w_i) over programs with rows: the validation metric.
double PackSumWeightedRmse(const PackedRows& packed, std::span<const float> row_scores,
                           std::span<const float> labels, std::span<const float> weights);

}  // namespace tunefarm::tuner
