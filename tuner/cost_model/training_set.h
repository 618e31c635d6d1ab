// Measured programs as the cost model's training data: per program, its task (workload key),
// its features and its measured cost. Labels are derived per task (throughput_labels.h), and a
// seeded random split gives a holdout for checking ranking quality.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuner/features/feature_matrix.h"

namespace tunefarm::tuner {

struct TrainingSet {
  std::vector<std::string> tasks;       // workload key per program
  std::vector<FeatureMatrix> features;  // per program
  std::vector<double> costs_s;          // per program; invalid (<= 0, NaN) for a failed build/run

  void Add(std::string task, FeatureMatrix program_features, double cost_s);
  size_t size() const { return costs_s.size(); }
};

// NormalizedThroughput of each program within its task, in program order.
std::vector<float> TaskNormalizedLabels(const TrainingSet& set);

struct TrainHoldoutSplit {
  TrainingSet train;
  TrainingSet holdout;
  // TaskNormalizedLabels of the whole set, split alike: both parts share one scale per task
  // (normalizing each part on its own would give each part's best a 1, and a validation set
  // labelled that way disagrees with the training set).
  std::vector<float> train_labels;
  std::vector<float> holdout_labels;
};

// round(size x holdout_fraction) programs, drawn uniformly by `seed`, go to the holdout; both
// parts keep the set's program order. Same set and seed, same split.
TrainHoldoutSplit SplitTrainHoldout(const TrainingSet& set, double holdout_fraction, uint64_t seed);

}  // namespace tunefarm::tuner
