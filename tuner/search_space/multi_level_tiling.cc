#include "tuner/search_space/multi_level_tiling.h"

#include <algorithm>
#include <optional>
#include <string>

#include "common/strings.h"

namespace tunefarm::tuner {
namespace {

using schedule::IterKind;
using schedule::State;

// Splits the iterator `name` into `parts` levels with unfilled lengths; returns the step index.
absl::StatusOr<int> SplitUnfilled(State* state, int stage, const std::string& name, int parts) {
  const int iter = schedule::FindIter(*state, stage, name);
  if (iter < 0) return absl::InternalError(StrCat("stage ", stage, " has no iterator ", name));
  std::vector<std::optional<int64_t>> lengths(parts - 1, std::nullopt);
  if (auto s = state->Split(stage, iter, std::move(lengths)); !s.ok()) return s;
  return static_cast<int>(state->steps().size()) - 1;
}

// The loop order that lists, for each level of `structure`, that level of every split axis of
// its kind; unsplit axes go first in the outermost group of their kind.
absl::Status ReorderByLevels(State* state, int stage, std::string_view structure, const std::vector<bool>& split) {
  const schedule::Stage& st = state->stage(stage);
  const int num_space = st.num_space_axes, num_reduce = st.num_reduce_axes;
  auto axis_name = [&](int axis) { return axis < num_space ? StrCat("i", axis) : StrCat("k", axis - num_space); };
  std::vector<int> order;
  int space_level = 0, reduce_level = 0;
  for (char c : structure) {
    const bool space = c == 'S';
    const int level = space ? space_level++ : reduce_level++;
    const int first = space ? 0 : num_space, last = space ? num_space : num_space + num_reduce;
    for (int axis = first; axis < last; ++axis) {
      std::string name = split[axis] ? StrCat(axis_name(axis), ".", level) : (level == 0 ? axis_name(axis) : "");
      if (name.empty()) continue;
      int iter = schedule::FindIter(*state, stage, name);
      if (iter < 0) return absl::InternalError(StrCat("stage ", stage, " has no iterator ", name));
      order.push_back(iter);
    }
  }
  return state->Reorder(stage, std::move(order));
}

}  // namespace

absl::StatusOr<TiledStage> TileMultiLevel(State* state, int stage, std::string_view structure) {
  const int space_levels = static_cast<int>(std::count(structure.begin(), structure.end(), 'S'));
  const int reduce_levels = static_cast<int>(std::count(structure.begin(), structure.end(), 'R'));
  if (space_levels + reduce_levels != static_cast<int>(structure.size()) || space_levels < 1 || reduce_levels < 1)
    return absl::InvalidArgumentError(StrCat("tile structure '", std::string(structure), "' must be made of S and R"));
  const te::TensorDef& tensor = state->dag().tensor(stage);
  const int num_space = static_cast<int>(tensor.shape.size());
  std::vector<bool> split(num_space + tensor.reduce_extents.size(), false);
  TiledStage tiles;
  for (int a = 0; a < num_space; ++a) {
    if (tensor.shape[a] <= 1 || space_levels == 1) continue;
    auto step = SplitUnfilled(state, stage, StrCat("i", a), space_levels);
    if (!step.ok()) return step.status();
    split[a] = true;
    tiles.space_axes.push_back(a);
    tiles.split_steps.push_back(*step);
  }
  for (size_t r = 0; r < tensor.reduce_extents.size(); ++r) {
    if (tensor.reduce_extents[r] <= 1 || reduce_levels == 1) continue;
    if (auto step = SplitUnfilled(state, stage, StrCat("k", r), reduce_levels); !step.ok()) return step.status();
    split[num_space + r] = true;
  }
  if (auto s = ReorderByLevels(state, stage, structure, split); !s.ok()) return s;
  return tiles;
}

absl::Status FuseIntoConsumer(State* state, int producer, int consumer, const TiledStage& tiles, int level) {
  if (tiles.space_axes.empty()) return absl::InvalidArgumentError("the producer has no split space axis to follow");
  for (size_t i = 0; i < tiles.space_axes.size(); ++i) {
    const std::string name = StrCat("i", tiles.space_axes[i]);
    const int iter = schedule::FindIter(*state, consumer, name);
    if (iter < 0) return absl::InternalError(StrCat("stage ", consumer, " has no iterator ", name));
    if (auto s = state->FollowSplit(consumer, iter, tiles.split_steps[i], level); !s.ok()) return s;
  }
  // Unsplit axes (extent 1) first, then each level of the split ones.
  const schedule::Stage& st = state->stage(consumer);
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i)
    if (st.node_of(i).name.find('.') == std::string::npos) order.push_back(i);
  int attach_position = -1;
  for (int l = 0; l <= level; ++l) {
    for (int axis : tiles.space_axes) order.push_back(schedule::FindIter(*state, consumer, StrCat("i", axis, ".", l)));
    if (l == level - 1) attach_position = static_cast<int>(order.size()) - 1;
  }
  if (std::find(order.begin(), order.end(), -1) != order.end() || order.size() != st.iters.size())
    return absl::InternalError(StrCat("stage ", consumer, " is not tiled as expected after follow_split"));
  if (auto s = state->Reorder(consumer, order); !s.ok()) return s;
  return state->ComputeAt(producer, consumer, attach_position);
}

}  // namespace tunefarm::tuner
