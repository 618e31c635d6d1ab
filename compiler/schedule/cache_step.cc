// Steps that add a stage to the DAG: cache_write, cache_read, rfactor. Each validates first,
// then builds the new DAG and inserts the stage, so a rejected step changes nothing.
#include <functional>
#include <set>

#include "compiler/common/strings.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {
namespace {

using te::Expr;
using te::ExprKind;
using te::TensorDef;

// Tensor reads of ids >= `at` move one up (a tensor was inserted at `at`).
Expr ShiftReads(const Expr& e, int at) {
  return te::Rewrite(e, [&](const Expr& n) -> Expr {
    if (n->kind != ExprKind::kLoad || n->int_value < at) return Expr();
    return te::Load(n->dtype, n->int_value + 1, n->operands);
  });
}

Expr RetargetReads(const Expr& e, int from, int to) {
  return te::Rewrite(e, [&](const Expr& n) -> Expr {
    if (n->kind != ExprKind::kLoad || n->int_value != from) return Expr();
    return te::Load(n->dtype, to, n->operands);
  });
}

std::vector<Expr> AxesOf(size_t rank) {
  std::vector<Expr> axes;
  for (size_t i = 0; i < rank; ++i) axes.push_back(te::Axis(static_cast<int>(i)));
  return axes;
}

// A copy of `dag` with `def` inserted at `at`; `edit` may change each later tensor (given its
// new id) after its reads were shifted.
std::shared_ptr<const te::ComputeDag> InsertTensor(const te::ComputeDag& dag, int at, TensorDef def,
                                                   const std::function<void(int, TensorDef*)>& edit = nullptr) {
  std::vector<TensorDef> tensors;
  for (int id = 0; id < dag.num_tensors(); ++id) {
    if (id == at) tensors.push_back(def);
    TensorDef t = dag.tensor(id);
    if (id >= at && !t.is_placeholder) t.body = ShiftReads(t.body, at);
    if (edit) edit(static_cast<int>(tensors.size()), &t);
    tensors.push_back(std::move(t));
  }
  if (at == dag.num_tensors()) tensors.push_back(std::move(def));
  std::vector<int> outputs;
  for (int o : dag.outputs()) outputs.push_back(o >= at ? o + 1 : o);
  return std::make_shared<const te::ComputeDag>(std::move(tensors), std::move(outputs));
}

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

absl::Status ApplyRfactor(const RfactorStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "RF", step.stage, step.iter); !s.ok()) return s;
  auto error = [&](std::string_view why) { return StepError("RF", step.stage, step.iter, why); };
  if (step.iter < 0) return error("negative iterator index");
  const Stage& stage = state->stage(step.stage);
  const TensorDef& orig = state->dag().tensor(step.stage);
  if (orig.reduce == te::ReduceKind::kNone) return error("the stage has no reduction");
  if (stage.location != ComputeLocation::kRoot || HasAttachments(*state, step.stage))
    return error("the stage must be at the root with nothing computed at it");
  int node = stage.iters[step.iter].node;
  if (stage.nodes[node].kind != IterKind::kReduce) return error("not a reduce iterator");
  for (const Iterator& it : stage.iters)
    if (it.annotation != IterAnnotation::kNone) return error("the stage already has annotations");

  // Which original reduce axis is factored, and how its value is rebuilt in the new stage.
  const int first_reduce_node = stage.num_space_axes;
  int axis = -1;
  int64_t factored_extent = 0;
  std::vector<int64_t> rf_reduce = orig.reduce_extents;
  std::function<Expr(Expr /*new axis 0*/, Expr /*raxis*/)> rebuild;
  if (stage.relations.empty()) {
    axis = node - first_reduce_node;
    factored_extent = orig.reduce_extents[axis];
    rf_reduce.erase(rf_reduce.begin() + axis);
  } else {
    const IterRelation& rel = stage.relations[0];
    if (stage.relations.size() != 1 || rel.kind != IterRelation::kSplit || rel.to.size() != 2 ||
        rel.from[0] < first_reduce_node || (rel.to[0] != node && rel.to[1] != node))
      return error("rfactor needs the iterator to be an original reduce axis or half of one two-way split of it");
    axis = rel.from[0] - first_reduce_node;
    int64_t k = orig.reduce_extents[axis], inner = stage.nodes[rel.to[1]].extent;
    int64_t outer = (k + inner - 1) / inner;
    bool factor_inner = rel.to[1] == node;
    factored_extent = factor_inner ? inner : outer;
    rf_reduce[axis] = factor_inner ? outer : inner;
    rebuild = [=](Expr a0, Expr r) { return factor_inner ? r * inner + a0 : a0 * inner + r; };
  }

  TensorDef rf = orig;
  rf.name = StrCat(orig.name, ".rf");
  rf.shape.insert(rf.shape.begin(), factored_extent);
  rf.reduce_extents = rf_reduce;
  if (rf.reduce_extents.empty()) rf.reduce = te::ReduceKind::kNone;
  Expr guard;
  const int64_t k_extent = orig.reduce_extents[axis];
  const bool pads = rebuild && factored_extent * rf_reduce[axis] != k_extent;
  rf.body = te::Rewrite(orig.body, [&](const Expr& n) -> Expr {
    if (n->kind == ExprKind::kAxis) return te::Axis(static_cast<int>(n->int_value) + 1);
    if (n->kind != ExprKind::kReduceAxis) return Expr();
    int r = static_cast<int>(n->int_value);
    if (r != axis) return te::ReduceAxis(!rebuild && r > axis ? r - 1 : r);
    if (!rebuild) return te::Axis(0);
    Expr value = rebuild(te::Axis(0), te::ReduceAxis(axis));
    if (!pads) return value;
    guard = te::Lt(value, te::IntImm(te::kIndexType, k_extent));
    // Select evaluates both arms, so the reads stay in bounds by clamping.
    return te::Min(value, te::IntImm(te::kIndexType, k_extent - 1));
  });
  // A split that does not divide adds points past the axis: they contribute the identity.
  if (guard.defined()) rf.body = te::Select(guard, rf.body, te::ReduceIdentity(orig.reduce, orig.dtype));

  auto dag = InsertTensor(state->dag(), step.stage, rf, [&](int id, TensorDef* t) {
    if (id != step.stage + 1) return;
    t->reduce_extents = {factored_extent};
    std::vector<Expr> index{te::ReduceAxis(0)};
    for (Expr& a : AxesOf(t->shape.size())) index.push_back(a);
    t->body = te::Load(t->dtype, step.stage, index);
  });
  state->InsertStage(dag, step.stage);
  state->ResetStage(step.stage + 1);
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
