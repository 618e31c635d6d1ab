// The pack-sum layout (Ansor): the cost model scores single rows (one buffer store each) and a
// program's score is the sum of its rows' scores. Programs are flattened into one row-major
// matrix, every row remembering its program, so that XGBoost sees rows and we see programs.
#pragma once

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/features/feature_matrix.h"

namespace tunefarm::tuner {

struct PackedRows {
  int cols = 0;                      // feature width shared by every program with rows
  int programs = 0;                  // programs packed, including those without rows
  std::vector<float> values;         // rows() x cols, row-major
  std::vector<int> program_of_row;   // rows() entries, each in [0, programs)

  int rows() const { return static_cast<int>(program_of_row.size()); }
};

// Flattens `programs` in order. A program without rows contributes none (its sum is 0) and its
// width is not checked. Invalid argument when two programs with rows differ in width, or when a
// matrix's values do not hold rows x cols floats.
absl::StatusOr<PackedRows> PackRows(std::span<const FeatureMatrix> programs);

// Per program, the sum of its rows' `row_values` (accumulated in double).
std::vector<double> SumPerProgram(const PackedRows& packed, std::span<const float> row_values);

}  // namespace tunefarm::tuner
