// Steps that add a stage to the DAG: cache_write, cache_read, rfactor. Each validates first,
// then builds the new DAG and inserts the stage, so a rejected step changes nothing.
#include <algorithm>
#include <functional>
#include <set>

#include "common/strings.h"
#include "compiler/schedule/dag_edit.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {
namespace {

using te::Expr;
using te::ExprKind;
using te::TensorDef;

bool HasAttachments(const State& state, int stage) {
  for (const Stage& s : state.stages())
    if (s.location == ComputeLocation::kAt && s.attach_stage == stage) return true;
  return false;
}

absl::Status CheckFreshRootStage(const State& state, std::string_view tag, int stage) {
  if (auto s = CheckStageIter(state, tag, stage, -1); !s.ok()) return s;
  if (!state.IsUntouched(stage)) return StepError(tag, stage, -1, "the stage already has loop transformations");
  if (state.stage(stage).location != ComputeLocation::kRoot) return StepError(tag, stage, -1, "the stage is not at the root");
  if (HasAttachments(state, stage)) return StepError(tag, stage, -1, "stages are computed at this stage's loops");
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyCacheWrite(const CacheWriteStep& step, State* state) {
  if (auto s = CheckFreshRootStage(*state, "CHW", step.stage); !s.ok()) return s;
  if (step.scope.empty()) return StepError("CHW", step.stage, -1, "no scope");
  if (step.scope == kLayoutScope) return StepError("CHW", step.stage, -1, "scope \"layout\" is reserved for layout rewrites");
  const TensorDef& orig = state->dag().tensor(step.stage);
  TensorDef local = orig;
  local.name = StrCat(orig.name, ".", step.scope);
  // The original stage now copies the cache: the inserted tensor takes its old index.
  auto dag = InsertTensor(state->dag(), step.stage, local, [&](int id, TensorDef* t) {
    if (id != step.stage + 1) return;
    t->reduce = te::ReduceKind::kNone;
    t->reduce_extents.clear();
    t->body = te::Load(t->dtype, step.stage, AxesOf(t->shape.size()));
  });
  state->InsertStage(dag, step.stage);
  state->ResetStage(step.stage + 1);
  state->mutable_stage(step.stage).scope = step.scope;
  return absl::OkStatus();
}

absl::Status ApplyCacheRead(const CacheReadStep& step, State* state) {
  auto error = [&](std::string_view why) { return StepError("CHR", step.stage, -1, why); };
  if (step.stage < 0 || step.stage >= static_cast<int>(state->stages().size())) return error("no such stage");
  if (step.scope.empty()) return error("no scope");
  if (step.scope == kLayoutScope) return error("scope \"layout\" is reserved for layout rewrites");
  if (step.readers.empty()) return error("no readers");
  if (state->stage(step.stage).location == ComputeLocation::kAt)
    return error("the stage is computed inside a consumer (cache_read before compute_at)");
  std::set<int> readers(step.readers.begin(), step.readers.end());
  if (readers.size() != step.readers.size()) return error("a reader is listed twice");
  for (int r : readers) {
    if (auto s = CheckStageIter(*state, "CHR", r, -1); !s.ok()) return s;
    if (!state->dag().analysis(r).reads.count(step.stage)) return error(StrCat("stage ", r, " does not read this stage"));
  }
  const TensorDef& src = state->dag().tensor(step.stage);
  TensorDef copy;
  copy.name = StrCat(src.name, ".", step.scope);
  copy.dtype = src.dtype;
  copy.shape = src.shape;
  copy.body = te::Load(src.dtype, step.stage, AxesOf(src.shape.size()));
  int at = step.stage + 1;
  auto dag = InsertTensor(state->dag(), at, copy, [&](int id, TensorDef* t) {
    if (readers.count(id - 1)) t->body = RetargetReads(t->body, step.stage, at);
  });
  state->InsertStage(dag, at);
  state->mutable_stage(at).scope = step.scope;
  return absl::OkStatus();
}

namespace {

// What an rfactor iterator is made of: the original reduce axes it folds (outer to inner, by
// index), and the two-way split of their fusion it is one half of, if any.
struct RfactorSource {
  std::vector<int> axes;
  const IterRelation* split = nullptr;
};

absl::StatusOr<RfactorSource> FindRfactorSource(const Stage& stage, int node) {
  auto not_supported = [] {
    return absl::InvalidArgumentError(
        "rfactor needs the iterator to be an original reduce axis or a fusion of several, or half of one two-way "
        "split of either, with no other loop transformation before it");
  };
  const int first_reduce = stage.num_space_axes;
  auto is_reduce_axis = [&](int n) { return n >= first_reduce && n < first_reduce + stage.num_reduce_axes; };
  RfactorSource src;
  int root = node;
  size_t used = 0;
  for (const IterRelation& rel : stage.relations)
    if (rel.kind == IterRelation::kSplit && std::find(rel.to.begin(), rel.to.end(), node) != rel.to.end()) {
      if (rel.to.size() != 2) return not_supported();
      src.split = &rel;
      root = rel.from[0];
      ++used;
    }
  const IterRelation* fuse = nullptr;
  for (const IterRelation& rel : stage.relations)
    if (rel.kind == IterRelation::kFuse && rel.to[0] == root) fuse = &rel, ++used;
  if (used != stage.relations.size()) return not_supported();
  for (int n : fuse ? fuse->from : std::vector<int>{root}) {
    if (!is_reduce_axis(n)) return not_supported();
    src.axes.push_back(n - first_reduce);
  }
  return src;
}

}  // namespace

absl::Status ApplyRfactor(const RfactorStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "RF", step.stage, step.iter); !s.ok()) return s;
  auto error = [&](std::string_view why) { return StepError("RF", step.stage, step.iter, why); };
  if (step.iter < 0) return error("negative iterator index");
  const Stage& stage = state->stage(step.stage);
  const TensorDef& orig = state->dag().tensor(step.stage);
  if (orig.reduce == te::ReduceKind::kNone) return error("the stage has no reduction");
  if (stage.location != ComputeLocation::kRoot || HasAttachments(*state, step.stage))
    return error("the stage must be at the root with nothing computed at it");
  const int node = stage.iters[step.iter].node;
  if (stage.nodes[node].kind != IterKind::kReduce) return error("not a reduce iterator");
  for (const Iterator& it : stage.iters)
    if (it.annotation != IterAnnotation::kNone) return error("the stage already has annotations");
  const int num_space = static_cast<int>(orig.shape.size());
  if (step.factor_axis < 0 || step.factor_axis > num_space)
    return error(StrCat("factor axis ", step.factor_axis, " is not in [0, ", num_space, "]"));
  auto source = FindRfactorSource(stage, node);
  if (!source.ok()) return error(std::string(source.status().message()));
  const std::vector<int>& axes = source->axes;

  // F, the fused index of the folded axes (extent K), from the factored axis a0 and, after a
  // split, the remaining half r: a0, or r * inner + a0 (factoring the inner half), or
  // a0 * inner + r.
  int64_t k_extent = 1;
  for (int a : axes) k_extent *= orig.reduce_extents[a];
  int64_t factored_extent = k_extent, rest_extent = 0;
  bool factor_inner = false;
  int64_t inner = 1;
  if (source->split) {
    inner = stage.nodes[source->split->to[1]].extent;
    int64_t outer = (k_extent + inner - 1) / inner;
    factor_inner = source->split->to[1] == node;
    factored_extent = factor_inner ? inner : outer;
    rest_extent = factor_inner ? outer : inner;
  }
  const bool pads = source->split && factored_extent * rest_extent != k_extent;

  // The new stage's reduce axes: the original ones it keeps, with the remaining half (if any)
  // in the place of the first folded axis.
  std::vector<int64_t> rf_reduce;
  std::vector<int> new_index(orig.reduce_extents.size(), -1);
  int rest_index = -1;
  for (int r = 0; r < static_cast<int>(orig.reduce_extents.size()); ++r) {
    if (std::find(axes.begin(), axes.end(), r) == axes.end()) {
      new_index[r] = static_cast<int>(rf_reduce.size());
      rf_reduce.push_back(orig.reduce_extents[r]);
    } else if (r == *std::min_element(axes.begin(), axes.end()) && rest_extent > 0) {
      rest_index = static_cast<int>(rf_reduce.size());
      rf_reduce.push_back(rest_extent);
    }
  }
  const Expr a0 = te::Axis(step.factor_axis);
  Expr fused = a0;
  if (source->split) {
    Expr r = te::ReduceAxis(rest_index);
    fused = factor_inner ? r * inner + a0 : a0 * inner + r;
  }
  // A split that does not divide adds points past K: they contribute the identity, and Select
  // evaluates both arms, so the reads stay in bounds by clamping.
  Expr guard = pads ? te::Lt(fused, te::IntImm(te::kIndexType, k_extent)) : Expr();
  Expr clamped = pads ? te::Min(fused, te::IntImm(te::kIndexType, k_extent - 1)) : fused;
  auto folded_value = [&](int r) {
    size_t p = std::find(axes.begin(), axes.end(), r) - axes.begin();
    int64_t stride = 1;
    for (size_t q = p + 1; q < axes.size(); ++q) stride *= orig.reduce_extents[axes[q]];
    Expr v = stride == 1 ? clamped : clamped / te::IntImm(te::kIndexType, stride);
    return p == 0 ? v : v % te::IntImm(te::kIndexType, orig.reduce_extents[r]);
  };

  TensorDef rf = orig;
  rf.name = StrCat(orig.name, ".rf");
  rf.shape.insert(rf.shape.begin() + step.factor_axis, factored_extent);
  rf.reduce_extents = rf_reduce;
  if (rf.reduce_extents.empty()) rf.reduce = te::ReduceKind::kNone;
  rf.body = te::Rewrite(orig.body, [&](const Expr& n) -> Expr {
    if (n->kind == ExprKind::kAxis)
      return te::Axis(static_cast<int>(n->int_value) + (n->int_value >= step.factor_axis ? 1 : 0));
    if (n->kind != ExprKind::kReduceAxis) return Expr();
    int r = static_cast<int>(n->int_value);
    return new_index[r] >= 0 ? te::ReduceAxis(new_index[r]) : folded_value(r);
  });
  if (guard.defined()) rf.body = te::Select(guard, rf.body, te::ReduceIdentity(orig.reduce, orig.dtype));

  auto dag = InsertTensor(state->dag(), step.stage, rf, [&](int id, TensorDef* t) {
    if (id != step.stage + 1) return;
    t->reduce_extents = {factored_extent};
    std::vector<Expr> index = AxesOf(t->shape.size());
    index.insert(index.begin() + step.factor_axis, te::ReduceAxis(0));
    t->body = te::Load(t->dtype, step.stage, index);
  });
  state->InsertStage(dag, step.stage);
  state->ResetStage(step.stage + 1);
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
