#include "tuner/search_space/gpu_sketch_rules.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "common/strings.h"
#include "compiler/schedule/iter_lookup.h"
#include "tuner/search_space/multi_level_tiling.h"
#include "tuner/search_space/shared_tiles.h"

namespace tunefarm::tuner {
namespace {

using schedule::State;
using Branches = absl::StatusOr<std::vector<SketchBranch>>;

Branches InlineApply(const State& s, int stage, const SearchTarget&) {
  State next = s;
  if (auto st = next.ComputeInline(stage); !st.ok()) return st;
  return std::vector<SketchBranch>{{std::move(next), stage - 1}};
}

RuleCondition GpuTileCondition(const State& s, int stage, const SearchTarget&) {
  return NeedsTiling(s, stage) && s.stage(stage).scope.empty() && HasSplittableSpaceAxis(s, stage)
             ? RuleCondition::kApplyAndSkipRest
             : RuleCondition::kSkip;
}

// Fuses `loops` of `stage` (positions, consecutive) into one, when there are several.
absl::Status FuseLoops(State* s, int stage, int first, int count) {
  if (count < 2) return absl::OkStatus();
  std::vector<int> loops(count);
  for (int i = 0; i < count; ++i) loops[i] = first + i;
  return s->Fuse(stage, loops);
}

// The position of the last loop of X.local's R0 level: its reduce loops named "kN.0", or "kN"
// for a reduce axis left unsplit (extent 1), which TileMultiLevel puts in the first group.
int LastOuterReduceLoop(const State& s, int stage) {
  const schedule::Stage& st = s.stage(stage);
  int last = -1;
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i) {
    const schedule::IterNode& node = st.node_of(i);
    if (node.kind != schedule::IterKind::kReduce) continue;
    const size_t dot = node.name.find('.');
    if (dot == std::string::npos || node.name.substr(dot) == ".0") last = i;
  }
  return last;
}

// Orders X.local's loops: S0, S1 and S2 (covered by the copy-out's block, virtual-thread and
// thread loops), every reduce level (R0, R1, R2), then the register tile's loops (S3, S4)
// innermost. The tile structure puts R2 between S3 and S4, which suits a CPU's vector
// registers; on a GPU a nest of at most RegisterTileElements() steps, unrolled, indexes the
// accumulators by constants only when no reduce loop sits among them, and only then do they
// stay in registers.
absl::Status PutAccumulatorsInnermost(State* s, int stage) {
  const schedule::Stage& st = s->stage(stage);
  auto rank = [&](int i) {  // unsplit loops, S0, S1 and S2 first; then R0, R1, R2; then S3, S4
    const schedule::IterNode& node = st.node_of(i);
    const int level = TileLevel(node);
    if (level < 0) return 0;
    if (node.kind == schedule::IterKind::kReduce) return 1 + level;
    return level < kGpuCopyOutLevels ? 0 : 4 + level;
  };
  std::vector<int> order(st.iters.size());
  for (int i = 0; i < static_cast<int>(order.size()); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rank(a) < rank(b); });
  return s->Reorder(stage, order);
}

Branches GpuTileApply(const State& s, int stage, const SearchTarget&) {
  State next = s;
  // 1. Shared copies of every tensor the stage reads, highest index first: each insertion
  //    shifts the stages after it, this one included.
  std::vector<int> producers;
  for (const auto& [tensor, reads] : s.dag().analysis(stage).reads) producers.push_back(tensor);
  std::sort(producers.rbegin(), producers.rend());
  int x = stage;
  for (int p : producers) {
    if (auto st = next.CacheRead(p, "shared", {x}); !st.ok()) return st;
    ++x;
  }
  // 2. The accumulators: X.local computes at index x, X (now a copy) at x + 1. When an
  //    elementwise stage (a bias, a ReLU) is X's only reader, the copy is inlined into it and
  //    it writes the tile out: one launch, and X never goes through global memory. Not when X
  //    is an output of the DAG too: an output is written, never inlined.
  if (auto st = next.CacheWrite(x, "local"); !st.ok()) return st;
  const int local = x;
  int copy = x + 1;
  const bool copy_is_output = next.dag().analysis(copy).is_output;
  if (const int epilogue = copy_is_output ? -1 : FusibleConsumer(next, copy); epilogue >= 0) {
    if (auto st = next.ComputeInline(copy); !st.ok()) return st;
    copy = epilogue;
  }
  auto tiles = TileMultiLevel(&next, local, kGpuTileStructure);
  if (!tiles.ok()) return tiles.status();
  if (auto st = PutAccumulatorsInnermost(&next, local); !st.ok()) return st;
  // 3. The copy-out follows S0, S1 and S2 of each split axis: S0s, S1s, S2s, then the
  //    register tile.
  const int axes = static_cast<int>(tiles->space_axes.size());
  for (int a = 0; a < axes; ++a) {
    const int iter = schedule::FindIter(next, copy, StrCat("i", tiles->space_axes[a]));
    if (iter < 0) return absl::InternalError(StrCat("the copy-out has no loop i", tiles->space_axes[a]));
    if (auto st = next.FollowSplit(copy, iter, tiles->split_steps[a], kGpuCopyOutLevels); !st.ok()) return st;
  }
  std::vector<int> order;
  for (int level = 0; level <= kGpuCopyOutLevels; ++level)
    for (int axis : tiles->space_axes) order.push_back(schedule::FindIter(next, copy, StrCat("i", axis, ".", level)));
  const schedule::Stage& copy_stage = next.stage(copy);
  for (int i = 0; i < static_cast<int>(copy_stage.iters.size()); ++i)  // unsplit axes (extent 1) innermost
    if (copy_stage.node_of(i).name.find('.') == std::string::npos) order.push_back(i);
  if (std::find(order.begin(), order.end(), -1) != order.end())
    return absl::InternalError("the copy-out is not tiled as expected after follow_split");
  if (auto st = next.Reorder(copy, order); !st.ok()) return st;
  if (auto st = FuseLoops(&next, copy, 0, axes); !st.ok()) return st;     // the blocks
  if (auto st = FuseLoops(&next, copy, 1, axes); !st.ok()) return st;     // the virtual threads
  if (auto st = FuseLoops(&next, copy, 2, axes); !st.ok()) return st;     // the threads
  if (auto st = next.ComputeAt(local, copy, 2); !st.ok()) return st;
  // 4. Each shared copy at X.local's step along the reduction, fetched by all the threads.
  const int step_loop = LastOuterReduceLoop(next, local);
  if (step_loop < 0) return absl::InternalError("the local stage has no reduce loop");
  for (int shared = 0; shared < local; ++shared) {  // this rule's copies: the shared stages at the root
    if (next.stage(shared).scope != "shared" || next.stage(shared).location != schedule::ComputeLocation::kRoot) continue;
    if (auto st = next.ComputeAt(shared, local, step_loop); !st.ok()) return st;
    const int loops = static_cast<int>(next.stage(shared).iters.size());
    if (auto st = FuseLoops(&next, shared, 0, loops); !st.ok()) return st;
    // The vector lanes each thread moves at once (drawn by annotation), then the rest split by
    // the thread count: the product of the S2 lengths (lengths[1] of each split).
    if (auto st = next.Split(shared, 0, {std::nullopt}); !st.ok()) return st;
    if (auto st = next.FollowFusedSplit(shared, 0, tiles->split_steps, 1, /*factor_or_nparts=*/true); !st.ok())
      return st;
  }
  // On with the stages below X.local: the shared copies (handled) and the producers.
  return std::vector<SketchBranch>{{std::move(next), local - 1}};
}

// A reduction left untiled and long enough to share among a warp (a row's sum or maximum, a
// global pool, a GEMV): besides keeping it (one thread per output point), a sketch with its
// reduce loops fused and split, the inner part for threadIdx.x (a cross-thread reduction,
// tir/lower.cc), its space loops fused for blockIdx.x.
RuleCondition CrossThreadCondition(const State& s, int stage, const SearchTarget&) {
  const schedule::Stage& st = s.stage(stage);
  if (st.location != schedule::ComputeLocation::kRoot || !st.scope.empty() || NeedsTiling(s, stage))
    return RuleCondition::kSkip;
  int64_t reduce = 1;
  bool seen_reduce = false;
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i) {
    const schedule::IterNode& node = st.node_of(i);
    if (node.kind == schedule::IterKind::kSpace && seen_reduce) return RuleCondition::kSkip;  // not as built
    if (node.kind != schedule::IterKind::kReduce) continue;
    if (node.extent == schedule::kUnknownExtent || node.name.find('.') != std::string::npos) return RuleCondition::kSkip;
    seen_reduce = true;
    reduce *= node.extent;
  }
  return seen_reduce && reduce >= kMinCrossThreadReduction ? RuleCondition::kApply : RuleCondition::kSkip;
}

Branches CrossThreadApply(const State& s, int stage, const SearchTarget&) {
  State next = s;
  int space = 0;
  const int loops = static_cast<int>(s.stage(stage).iters.size());
  while (s.stage(stage).node_of(space).kind == schedule::IterKind::kSpace) ++space;
  if (auto st = FuseLoops(&next, stage, space, loops - space); !st.ok()) return st;
  if (auto st = next.Split(stage, space, {std::nullopt}); !st.ok()) return st;
  if (auto st = FuseLoops(&next, stage, 0, space); !st.ok()) return st;
  return std::vector<SketchBranch>{{std::move(next), stage - 1}};
}

}  // namespace

int TileLevel(const schedule::IterNode& node) {
  const size_t dot = node.name.rfind('.');
  return dot == std::string::npos ? -1 : std::atoi(node.name.c_str() + dot + 1);
}

std::vector<int> RegisterTileLoops(const State& s, int local) {
  std::vector<int> loops;
  const schedule::Stage& st = s.stage(local);
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i)
    if (st.node_of(i).kind == schedule::IterKind::kSpace && TileLevel(st.node_of(i)) >= kGpuCopyOutLevels)
      loops.push_back(i);
  return loops;
}

bool IsFetchLanesSplit(const std::vector<schedule::Step>& steps, size_t i) {
  const auto* split = std::get_if<schedule::SplitStep>(&steps[i]);
  const auto* follow = i + 1 < steps.size() ? std::get_if<schedule::FollowFusedSplitStep>(&steps[i + 1]) : nullptr;
  return split && follow && split->lengths.size() == 1 && split->iter == 0 && follow->stage == split->stage &&
         follow->iter == 0 && follow->level == 1 && follow->factor_or_nparts;
}

bool FetchLanesFit(const SharedTile& tile, int64_t lanes) {
  return lanes == 1 || (tile.row() % lanes == 0 && tile.element_bytes == kFetchLaneBytes && tile.plain_copy);
}

bool HasRows(const State& s, int stage) {
  const schedule::Stage& st = s.stage(stage);
  if (st.scope != "shared" || st.num_space_axes < 2 || st.location != schedule::ComputeLocation::kAt) return false;
  absl::StatusOr<SharedTile> tile = EstimateSharedTile(s, stage);
  if (!tile.ok()) return true;  // only lowering knows its shape
  const auto outer = tile->extents.begin() + tile->RowDim();
  return std::any_of(tile->extents.begin(), outer, [](int64_t e) { return e > 1; });  // two rows or more
}

bool HasPaddableRows(const State& s, int stage) {
  if (!HasRows(s, stage)) return false;
  absl::StatusOr<SharedTile> tile = EstimateSharedTile(s, stage);
  return !tile.ok() || tile->extents[tile->RowDim()] % kRowPadFactor != kRowPadOffset;
}

absl::Status PadRows(State* s, int stage, int factor, int offset) {
  absl::StatusOr<SharedTile> tile = EstimateSharedTile(*s, stage);
  const int axis = tile.ok() ? tile->RowDim() - 1 : s->stage(stage).num_space_axes - 2;
  return s->StorageAlign(stage, axis, factor, offset);
}

bool IsCrossThreadReduction(const State& s, int stage) {
  const schedule::Stage& st = s.stage(stage);
  if (st.location != schedule::ComputeLocation::kRoot || st.iters.size() < 2 || st.iters.size() > 3) return false;
  const schedule::IterNode& last = st.node_of(static_cast<int>(st.iters.size()) - 1);
  const schedule::IterNode& before = st.node_of(static_cast<int>(st.iters.size()) - 2);
  return last.kind == schedule::IterKind::kReduce && before.kind == schedule::IterKind::kReduce &&
         last.name.size() > 2 && last.name.substr(last.name.size() - 2) == ".1" &&
         (st.iters.size() == 2 || st.node_of(0).kind == schedule::IterKind::kSpace);
}

const std::vector<SketchRule>& GpuSketchRules() {
  static const std::vector<SketchRule> kRules = {
      {"handled", HandledCondition, Next},
      {"inline", InlineCondition, InlineApply},
      {"gpu-tile", GpuTileCondition, GpuTileApply},
      {"cross-thread", CrossThreadCondition, CrossThreadApply},
      {"keep", KeepCondition, Next},
  };
  return kRules;
}

}  // namespace tunefarm::tuner
