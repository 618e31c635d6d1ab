#include "tests/tuner/cost_model/synthetic_programs.h"

#include <cmath>
#include <random>
#include <string>

namespace tunefarm::tuner::testing {
namespace {

FeatureMatrix RandomRows(int rows, int cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  FeatureMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.values.resize(static_cast<size_t>(rows) * cols);
  for (float& v : m.values) v = uniform(rng);
  return m;
}

}  // namespace

double RowThroughput(const float* x) {
  double bump = std::exp(-8.0 * ((x[0] - 0.6) * (x[0] - 0.6) + (x[1] - 0.3) * (x[1] - 0.3)));
  return 0.2 + bump + x[2] * x[3] + (x[4] > 0.7f ? 0.5 : 0.0);
}

FeatureMatrix RandomProgram(int rows, int cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return RandomRows(rows, cols, rng);
}

TrainingSet SyntheticTrainingSet(const SyntheticOptions& options) {
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<int> row_count(options.min_rows, options.max_rows);
  TrainingSet set;
  for (int p = 0; p < options.programs; ++p) {
    int task = p % options.tasks;
    FeatureMatrix m = RandomRows(row_count(rng), options.cols, rng);
    double throughput = 0;
    for (int r = 0; r < m.rows; ++r) throughput += RowThroughput(m.row(r));
    set.Add("task" + std::to_string(task), std::move(m), std::pow(1000.0, task) / throughput);
  }
  return set;
}

}  // namespace tunefarm::tuner::testing
