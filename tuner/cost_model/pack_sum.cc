#include "tuner/cost_model/pack_sum.h"

#include "common/strings.h"

namespace tunefarm::tuner {

absl::StatusOr<PackedRows> PackRows(std::span<const FeatureMatrix> programs) {
  PackedRows packed;
  packed.programs = static_cast<int>(programs.size());
  size_t total_rows = 0;
  bool width_known = false;
  for (size_t p = 0; p < programs.size(); ++p) {
    const FeatureMatrix& m = programs[p];
    if (m.rows < 0 || m.cols < 0) {
      return absl::InvalidArgumentError(StrCat("program ", p, ": negative shape ", m.rows, "x", m.cols));
    }
    if (m.rows == 0) continue;
    if (!width_known) {
      packed.cols = m.cols;
      width_known = true;
    } else if (m.cols != packed.cols) {
      return absl::InvalidArgumentError(
          StrCat("program ", p, " has ", m.cols, " features per row, earlier programs ", packed.cols));
    }
    if (m.values.size() != static_cast<size_t>(m.rows) * m.cols) {
      return absl::InvalidArgumentError(StrCat("program ", p, ": ", m.values.size(), " values for ", m.rows,
                                                     " rows x ", m.cols, " features"));
    }
    total_rows += m.rows;
  }
  packed.values.reserve(total_rows * packed.cols);
  packed.program_of_row.reserve(total_rows);
  for (size_t p = 0; p < programs.size(); ++p) {
    const FeatureMatrix& m = programs[p];
    if (m.rows == 0) continue;
    packed.values.insert(packed.values.end(), m.values.begin(), m.values.end());
    packed.program_of_row.insert(packed.program_of_row.end(), m.rows, static_cast<int>(p));
  }
  return packed;
}

std::vector<double> SumPerProgram(const PackedRows& packed, std::span<const float> row_values) {
  std::vector<double> sums(packed.programs, 0.0);
  for (int r = 0; r < packed.rows(); ++r) sums[packed.program_of_row[r]] += row_values[r];
  return sums;
}

}  // namespace tunefarm::tuner
