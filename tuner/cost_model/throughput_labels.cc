#include "tuner/cost_model/throughput_labels.h"

#include <cmath>
#include <limits>

namespace tunefarm::tuner {

bool ValidCost(double cost_s) { return std::isfinite(cost_s) && cost_s > 0; }

std::vector<float> NormalizedThroughput(std::span<const double> costs_s) {
  double best = std::numeric_limits<double>::infinity();
  for (double c : costs_s)
    if (ValidCost(c) && c < best) best = c;
  std::vector<float> labels(costs_s.size(), 0.0f);
  for (size_t i = 0; i < costs_s.size(); ++i)
    if (ValidCost(costs_s[i])) labels[i] = static_cast<float>(best / costs_s[i]);
  return labels;
}

}  // namespace tunefarm::tuner
