#include "tuner/search_space/tile_operands.h"

#include <algorithm>
#include <set>
#include <string>

#include "common/strings.h"
#include "compiler/te/access_analysis.h"
#include "compiler/te/expr.h"
#include "compiler/te/expr_text.h"

namespace tunefarm::tuner {

double TileOperands::LoadsPerPoint(const std::vector<int64_t>& tile) const {
  double points = 1, loads = 0;
  for (int64_t t : tile) points *= static_cast<double>(t);
  for (const std::vector<bool>& operand : uses) {
    double elements = 1;
    for (size_t a = 0; a < operand.size() && a < tile.size(); ++a)
      if (operand[a]) elements *= static_cast<double>(tile[a]);
    loads += elements;
  }
  return loads / points;
}

absl::StatusOr<TileOperands> TileOperandsOf(const schedule::State& s, const std::vector<size_t>& split_steps) {
  TileOperands out;
  if (split_steps.empty()) return out;
  const size_t last = *std::max_element(split_steps.begin(), split_steps.end());
  if (last >= s.steps().size()) return absl::InvalidArgumentError(StrCat("no schedule step ", last));
  std::vector<int64_t> axis_of(split_steps.size(), -1);
  int tensor = -1;
  schedule::State replay(s.original_dag());
  for (size_t i = 0; i <= last; ++i) {
    const auto at = std::find(split_steps.begin(), split_steps.end(), i);
    if (at != split_steps.end()) {
      const auto* split = std::get_if<schedule::SplitStep>(&s.steps()[i]);
      if (split == nullptr) return absl::InvalidArgumentError(StrCat("schedule step ", i, " is not a split"));
      const schedule::Stage& stage = replay.stage(split->stage);
      const int node = stage.iters.at(split->iter).node;
      if (node >= stage.num_space_axes)
        return absl::InvalidArgumentError(StrCat("schedule step ", i, " does not split an original space axis"));
      if (tensor >= 0 && tensor != stage.tensor_id)
        return absl::InvalidArgumentError(StrCat("schedule step ", i, " splits another stage"));
      tensor = stage.tensor_id;
      axis_of[at - split_steps.begin()] = node;
      if (i == last)  // the reads as the DAG has them here
        for (const auto& [operand, index_lists] : replay.dag().analysis(tensor).reads) {
          std::set<std::string> seen;  // a body may read one element several times: one load
          for (const std::vector<te::Expr>& indices : index_lists) {
            std::string key;
            for (const te::Expr& index : indices) key += te::ExprToText(index) + ",";
            if (!seen.insert(key).second) continue;
            const std::set<int64_t> used = te::SpaceAxesUsed(indices);
            std::vector<bool>& u = out.uses.emplace_back(split_steps.size());
            for (size_t a = 0; a < split_steps.size(); ++a) u[a] = used.count(axis_of[a]) > 0;
          }
        }
    }
    if (absl::Status st = replay.Apply(s.steps()[i]); !st.ok()) return st;
  }
  return out;
}

}  // namespace tunefarm::tuner
