#include "tuner/cost_model/training_set.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "tuner/cost_model/throughput_labels.h"

namespace tunefarm::tuner {

void TrainingSet::Add(std::string task, FeatureMatrix program_features, double cost_s) {
  tasks.push_back(std::move(task));
  features.push_back(std::move(program_features));
  costs_s.push_back(cost_s);
}

std::vector<float> TaskNormalizedLabels(const TrainingSet& set) {
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < set.size(); ++i) members[set.tasks[i]].push_back(i);
  std::vector<float> labels(set.size(), 0.0f);
  for (const auto& [task, indices] : members) {
    std::vector<double> costs;
    for (size_t i : indices) costs.push_back(set.costs_s[i]);
    std::vector<float> task_labels = NormalizedThroughput(costs);
    for (size_t j = 0; j < indices.size(); ++j) labels[indices[j]] = task_labels[j];
  }
  return labels;
}

TrainHoldoutSplit SplitTrainHoldout(const TrainingSet& set, double holdout_fraction, uint64_t seed) {
  size_t n = set.size();
  size_t holdout_count = std::min(n, static_cast<size_t>(std::llround(std::clamp(holdout_fraction, 0.0, 1.0) * n)));
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // A Fisher-Yates pass of our own: std::shuffle's sequence differs between standard libraries.
  std::mt19937_64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  std::vector<bool> in_holdout(n, false);
  for (size_t i = 0; i < holdout_count; ++i) in_holdout[order[i]] = true;
  std::vector<float> labels = TaskNormalizedLabels(set);
  TrainHoldoutSplit split;
  for (size_t i = 0; i < n; ++i) {
    TrainingSet& part = in_holdout[i] ? split.holdout : split.train;
    part.Add(set.tasks[i], set.features[i], set.costs_s[i]);
    (in_holdout[i] ? split.holdout_labels : split.train_labels).push_back(labels[i]);
  }
  return split;
}

}  // namespace tunefarm::tuner
