#include "tuner/search_space/sketch_rules.h"

#include <algorithm>
#include <utility>

#include "common/strings.h"
#include "compiler/schedule/padding_placement.h"
#include "tuner/search_space/gpu_sketch_rules.h"
#include "tuner/search_space/multi_level_tiling.h"

namespace tunefarm::tuner {
namespace {

using schedule::ComputeLocation;
using schedule::State;

// Branches that carry on with the stage below.
using Branches = absl::StatusOr<std::vector<SketchBranch>>;

const te::StageAnalysis& Analysis(const State& s, int stage) { return s.dag().analysis(stage); }

}  // namespace

bool Fresh(const State& s, int stage) {
  const schedule::Stage& st = s.stage(stage);
  return !st.is_placeholder && st.location == ComputeLocation::kRoot && s.IsUntouched(stage);
}

bool NeedsTiling(const State& s, int stage) { return Fresh(s, stage) && Analysis(s, stage).needs_multi_level_tiling; }

namespace {

bool IsCacheStage(const State& s, int stage) { return !s.stage(stage).scope.empty(); }

// Each dimension d read at axis d, or at 0 where the dimension is 1 long: broadcasting ops read a
// tensor's 1-long dimensions at 0 (ops::BroadcastRead), so a residual Add of batch 1 reads its
// conv as (0, c, y, x), the same point.
bool IsIdentityRead(const std::vector<te::Expr>& indices, const std::vector<int64_t>& shape) {
  for (size_t d = 0; d < indices.size(); ++d) {
    const te::Expr& i = indices[d];
    const bool own_axis = i->kind == te::ExprKind::kAxis && i->int_value == static_cast<int64_t>(d);
    const bool zero_of_one = i->kind == te::ExprKind::kIntImm && i->int_value == 0 && shape[d] == 1;
    if (!own_axis && !zero_of_one) return false;
  }
  return true;
}

enum class ReadKind { kNone, kElementwise, kOther };

// How `reader` reads `producer`, looking through inlined stages: point by point (same shape,
// each read at the reader's own point), otherwise, or not at all.
ReadKind HowReads(const State& s, int reader, int producer) {
  ReadKind kind = ReadKind::kNone;
  for (const auto& [tensor, index_lists] : Analysis(s, reader).reads) {
    ReadKind via = tensor == producer ? ReadKind::kElementwise
                   : s.stage(tensor).location == ComputeLocation::kInlined ? HowReads(s, tensor, producer)
                                                                           : ReadKind::kNone;
    if (via == ReadKind::kNone) continue;
    if (via == ReadKind::kOther || s.dag().tensor(tensor).shape != s.dag().tensor(reader).shape) return ReadKind::kOther;
    for (const auto& indices : index_lists)
      if (!IsIdentityRead(indices, s.dag().tensor(tensor).shape)) return ReadKind::kOther;
    kind = ReadKind::kElementwise;
  }
  return kind;
}

}  // namespace

int FusibleConsumer(const State& s, int stage) {
  std::vector<int> readers = s.EffectiveConsumers(stage);
  if (readers.size() != 1) return -1;
  const int c = readers[0];
  if (!Fresh(s, c) || Analysis(s, c).has_reduction) return -1;
  if (s.dag().tensor(c).shape != s.dag().tensor(stage).shape) return -1;
  return HowReads(s, c, stage) == ReadKind::kElementwise ? c : -1;
}

bool HasSplittableSpaceAxis(const State& s, int stage) {
  for (int64_t e : s.dag().tensor(stage).shape)
    if (e > 1) return true;
  return false;
}

namespace {

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Ansor's test: factor a reduction when its space loops cannot keep the cores busy.
bool NeedsRfactor(const State& s, int stage, const SearchTarget& target) {
  const te::TensorDef& t = s.dag().tensor(stage);
  const int64_t space = Product(t.shape), reduce = Product(t.reduce_extents);
  if (Analysis(s, stage).needs_multi_level_tiling) return space <= reduce && space <= int64_t{16} * target.cores;
  return reduce > 1 && reduce > target.cores;
}

}  // namespace

// --- The rules ---

RuleCondition HandledCondition(const State& s, int stage, const SearchTarget&) {
  return Fresh(s, stage) ? RuleCondition::kSkip : RuleCondition::kApplyAndSkipRest;
}
absl::StatusOr<std::vector<SketchBranch>> Next(const State& s, int stage, const SearchTarget&) {
  return std::vector<SketchBranch>{{s, stage - 1}};
}
RuleCondition InlineCondition(const State& s, int stage, const SearchTarget&) {
  return Fresh(s, stage) && Analysis(s, stage).strictly_inlinable ? RuleCondition::kApplyAndSkipRest
                                                                  : RuleCondition::kSkip;
}

namespace {

// A conv's padding that may be worth computing once (padding_placement.h): both placements.
Branches InlineApply(const State& s, int stage, const SearchTarget& target) {
  State next = s;
  if (auto st = next.ComputeInline(stage); !st.ok()) return st;
  std::vector<SketchBranch> out{{std::move(next), stage - 1}};
  if (schedule::PaddingWorthComputingOnce(s, stage, target.vector_lanes)) out.push_back({s, stage - 1});
  return out;
}

RuleCondition RfactorCondition(const State& s, int stage, const SearchTarget& target) {
  return Fresh(s, stage) && Analysis(s, stage).has_reduction && !IsCacheStage(s, stage) &&
                 Product(s.dag().tensor(stage).reduce_extents) > 1 && NeedsRfactor(s, stage, target)
             ? RuleCondition::kApply
             : RuleCondition::kSkip;
}
// The reduce loops fused into one and split in two (outer, inner); either half is factored out:
// the new stage (at `stage`) computes partial results along it as its last space axis, the old
// one sums them. The inner half is then moved innermost, where it can be vectorized.
Branches RfactorApply(const State& s, int stage, const SearchTarget& target) {
  const int num_space = s.stage(stage).num_space_axes, num_reduce = s.stage(stage).num_reduce_axes;
  const int64_t extent = Product(s.dag().tensor(stage).reduce_extents);
  State split = s;
  if (num_reduce > 1) {  // a fresh stage's reduce loops follow its space loops
    std::vector<int> reduce_loops;
    for (int r = 0; r < num_reduce; ++r) reduce_loops.push_back(num_space + r);
    if (auto st = split.Fuse(stage, reduce_loops); !st.ok()) return st;
  }
  // A placeholder length (a divisor, so the factored stage has no padded points); annotation
  // draws it again like the sketch's unfilled lengths (it must be known to build the new stage).
  int64_t length = 1;
  for (int64_t d = std::min<int64_t>(extent, target.MaxVectorExtent()); d > 1 && length == 1; --d)
    if (extent % d == 0) length = d;
  if (auto st = split.Split(stage, num_space, {length}); !st.ok()) return st;
  std::vector<SketchBranch> out;
  for (const bool inner : {true, false}) {
    State next = split;
    if (auto st = next.Rfactor(stage, num_space + (inner ? 1 : 0), num_space); !st.ok()) return st;
    if (inner) {  // loops: space..., factored, rest -> space..., rest, factored
      std::vector<int> order;
      for (int i = 0; i < static_cast<int>(next.stage(stage).iters.size()); ++i)
        if (i != num_space) order.push_back(i);
      order.push_back(num_space);
      if (auto st = next.Reorder(stage, order); !st.ok()) return st;
    }
    out.push_back({std::move(next), stage - 1});
  }
  return out;
}

RuleCondition CacheWriteCondition(const State& s, int stage, const SearchTarget&) {
  return NeedsTiling(s, stage) && !IsCacheStage(s, stage) && HasSplittableSpaceAxis(s, stage) &&
                 FusibleConsumer(s, stage) < 0
             ? RuleCondition::kApply
             : RuleCondition::kSkip;
}
// The cache stage takes index `stage`; visiting it again lets tile+fuse fuse it into the copy.
Branches CacheWriteApply(const State& s, int stage, const SearchTarget&) {
  State next = s;
  if (auto st = next.CacheWrite(stage, "local"); !st.ok()) return st;
  return std::vector<SketchBranch>{{std::move(next), stage}};
}

RuleCondition TileFuseCondition(const State& s, int stage, const SearchTarget&) {
  if (!NeedsTiling(s, stage) || !HasSplittableSpaceAxis(s, stage) || FusibleConsumer(s, stage) < 0)
    return RuleCondition::kSkip;
  return IsCacheStage(s, stage) ? RuleCondition::kApplyAndSkipRest : RuleCondition::kApply;
}
Branches TileFuseApply(const State& s, int stage, const SearchTarget&) {
  const int consumer = FusibleConsumer(s, stage);
  State tiled = s;
  auto tiles = TileMultiLevel(&tiled, stage);
  if (!tiles.ok()) return tiles.status();
  std::vector<SketchBranch> out;
  for (int level : {1, 2}) {
    State next = tiled;
    if (auto st = FuseIntoConsumer(&next, stage, consumer, *tiles, level); !st.ok()) return st;
    out.push_back({std::move(next), stage - 1});
  }
  return out;
}

RuleCondition TileCondition(const State& s, int stage, const SearchTarget&) {
  return NeedsTiling(s, stage) ? RuleCondition::kApplyAndSkipRest : RuleCondition::kSkip;
}
Branches TileApply(const State& s, int stage, const SearchTarget&) {
  State next = s;
  if (auto tiles = TileMultiLevel(&next, stage); !tiles.ok()) return tiles.status();
  return std::vector<SketchBranch>{{std::move(next), stage - 1}};
}

}  // namespace

RuleCondition KeepCondition(const State&, int, const SearchTarget&) { return RuleCondition::kApply; }

const std::vector<SketchRule>& SketchRules() {
  static const std::vector<SketchRule> kRules = {
      {"handled", HandledCondition, Next},
      {"inline", InlineCondition, InlineApply},
      {"rfactor", RfactorCondition, RfactorApply},
      {"cache-write", CacheWriteCondition, CacheWriteApply},
      {"tile+fuse", TileFuseCondition, TileFuseApply},
      {"tile", TileCondition, TileApply},
      {"keep", KeepCondition, Next},
  };
  return kRules;
}

std::vector<State> GenerateSketches(std::shared_ptr<const te::ComputeDag> dag, const SearchTarget& target,
                                    std::vector<std::string>* notes) {
  std::vector<State> sketches;
  std::vector<SketchBranch> pending;
  const int last = dag->num_tensors() - 1;
  pending.push_back({State(std::move(dag)), last});
  // Depth first, taking the branches of each rule in order, so the sketch order is fixed.
  while (!pending.empty()) {
    SketchBranch current = std::move(pending.back());
    pending.pop_back();
    if (current.next_stage < 0) {
      sketches.push_back(std::move(current.state));
      continue;
    }
    const int stage = current.next_stage;
    std::vector<SketchBranch> produced;
    for (const SketchRule& rule : target.gpu ? GpuSketchRules() : SketchRules()) {
      const RuleCondition condition = rule.condition(current.state, stage, target);
      if (condition == RuleCondition::kSkip) continue;
      auto branches = rule.apply(current.state, stage, target);
      if (!branches.ok()) {
        // A refused step is a rule bug; the later rules still run, so a state always goes on.
        if (notes)
          notes->push_back(StrCat("rule '", rule.name, "' on stage ", stage, " (", current.state.dag().tensor(stage).name,
                                  "): ", std::string(branches.status().message())));
        continue;
      }
      for (SketchBranch& b : *branches) produced.push_back(std::move(b));
      if (condition == RuleCondition::kApplyAndSkipRest) break;
    }
    for (auto it = produced.rbegin(); it != produced.rend(); ++it) pending.push_back(std::move(*it));
  }
  return sketches;
}

}  // namespace tunefarm::tuner
