// What program features are to the cost model: one row of floats per buffer store statement of
// a lowered program (Ansor's per-store features), every row of the same width. The cost model
// predicts one score per row and a program's score is the sum over its rows ("pack-sum").
#pragma once

#include <vector>

namespace tunefarm::tuner {

struct FeatureMatrix {
  int rows = 0;               // buffer stores of the program
  int cols = 0;               // features per store
  std::vector<float> values;  // rows x cols, row-major

  const float* row(int r) const { return values.data() + static_cast<size_t>(r) * cols; }
};

}  // namespace tunefarm::tuner
