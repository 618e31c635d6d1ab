// Synthetic training data for the cost model's tests and bench: programs of min..max rows of
// uniform random features whose true throughput is known and pack-sum shaped,
//   throughput(program) = sum over rows of RowThroughput(row),
// with RowThroughput a nonlinear function of the first five features (the rest are noise). A
// model that cannot learn nonlinear row scores, or that does not sum them, ranks these badly.
#pragma once

#include <cstdint>

#include "tuner/cost_model/training_set.h"

namespace tunefarm::tuner::testing {

struct SyntheticOptions {
  int programs = 700;
  int cols = 8;          // >= 5
  int min_rows = 1;
  int max_rows = 6;
  int tasks = 1;         // task t's costs are scaled by 1000^t: normalization must absorb it
  uint64_t seed = 1;
};

// > 0 for every row.
double RowThroughput(const float* row);

// A program with `rows` random rows.
FeatureMatrix RandomProgram(int rows, int cols, uint64_t seed);

// Programs round-robin over the tasks; cost_s = scale of the task / throughput.
TrainingSet SyntheticTrainingSet(const SyntheticOptions& options);

}  // namespace tunefarm::tuner::testing
