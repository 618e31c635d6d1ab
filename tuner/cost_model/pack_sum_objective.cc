#include "tuner/cost_model/pack_sum_objective.h"

#include <algorithm>
#include <cmath>

namespace tunefarm::tuner {

std::vector<float> LabelWeights(std::span<const float> labels, float min_weight) {
  std::vector<float> weights(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) weights[i] = std::max(labels[i], min_weight);
  return weights;
}

void PackSumSquareErrorGradients(const PackedRows& packed, std::span<const float> row_scores,
                                 std::span<const float> labels, std::span<const float> weights,
                                 std::vector<float>* grad, std::vector<float>* hess) {
  std::vector<double> sums = SumPerProgram(packed, row_scores);
  grad->resize(packed.rows());
  hess->resize(packed.rows());
  for (int r = 0; r < packed.rows(); ++r) {
    int p = packed.program_of_row[r];
    (*grad)[r] = static_cast<float>(weights[p] * (sums[p] - labels[p]));
    (*hess)[r] = weights[p];
  }
}

double PackSumWeightedRmse(const PackedRows& packed, std::span<const float> row_scores,
                           std::span<const float> labels, std::span<const float> weights) {
  std::vector<double> sums = SumPerProgram(packed, row_scores);
  std::vector<bool> has_rows(packed.programs, false);
  for (int p : packed.program_of_row) has_rows[p] = true;
  double squared = 0, total_weight = 0;
  for (int p = 0; p < packed.programs; ++p) {
    if (!has_rows[p]) continue;
    double e = sums[p] - labels[p];
    squared += weights[p] * e * e;
    total_weight += weights[p];
  }
  return total_weight > 0 ? std::sqrt(squared / total_weight) : 0.0;
}

}  // namespace tunefarm::tuner
