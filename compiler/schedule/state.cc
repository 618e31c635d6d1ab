#include "compiler/schedule/state.h"

#include <algorithm>

#include "common/sha256.h"
#include "common/strings.h"
#include "compiler/schedule/step_common.h"
#include "compiler/schedule/step_json.h"

namespace tunefarm::schedule {

std::string_view IterAnnotationName(IterAnnotation a) {
  switch (a) {
    case IterAnnotation::kNone: return "none";
    case IterAnnotation::kParallel: return "parallel";
    case IterAnnotation::kVectorize: return "vectorize";
    case IterAnnotation::kUnroll: return "unroll";
    case IterAnnotation::kBlockX: return "blockIdx.x";
    case IterAnnotation::kBlockY: return "blockIdx.y";
    case IterAnnotation::kBlockZ: return "blockIdx.z";
    case IterAnnotation::kThreadX: return "threadIdx.x";
    case IterAnnotation::kThreadY: return "threadIdx.y";
    case IterAnnotation::kThreadZ: return "threadIdx.z";
    case IterAnnotation::kVThread: return "vthread";
  }
  return "?";
}

IterAnnotation IterAnnotationFromName(std::string_view name) {
  for (int a = 1; a <= static_cast<int>(IterAnnotation::kVThread); ++a) {
    if (IterAnnotationName(static_cast<IterAnnotation>(a)) == name) return static_cast<IterAnnotation>(a);
  }
  return IterAnnotation::kNone;
}

namespace {

Stage InitialStage(const te::ComputeDag& dag, int id) {
  const te::TensorDef& t = dag.tensor(id);
  Stage s;
  s.tensor_id = id;
  s.is_placeholder = t.is_placeholder;
  if (t.is_placeholder) return s;
  for (size_t i = 0; i < t.shape.size(); ++i) s.nodes.push_back({StrCat("i", i), t.shape[i], IterKind::kSpace});
  for (size_t i = 0; i < t.reduce_extents.size(); ++i)
    s.nodes.push_back({StrCat("k", i), t.reduce_extents[i], IterKind::kReduce});
  s.num_space_axes = static_cast<int>(t.shape.size());
  s.num_reduce_axes = static_cast<int>(t.reduce_extents.size());
  for (int n = 0; n < static_cast<int>(s.nodes.size()); ++n) s.iters.push_back({n, IterAnnotation::kNone});
  return s;
}

}  // namespace

State::State(std::shared_ptr<const te::ComputeDag> dag) : original_dag_(dag), dag_(std::move(dag)) {
  for (int id = 0; id < dag_->num_tensors(); ++id) stages_.push_back(InitialStage(*dag_, id));
}

void State::InsertStage(std::shared_ptr<const te::ComputeDag> dag, int inserted) {
  dag_ = std::move(dag);
  for (Stage& s : stages_) {
    if (s.tensor_id >= inserted) ++s.tensor_id;
    if (s.attach_stage >= inserted) ++s.attach_stage;
  }
  stages_.insert(stages_.begin() + inserted, InitialStage(*dag_, inserted));
}

void State::ResetStage(int id) {
  Stage fresh = InitialStage(*dag_, id);
  fresh.scope = stages_[id].scope;
  stages_[id] = std::move(fresh);
}

bool State::IsUntouched(int id) const {
  const Stage& s = stages_[id];
  if (!s.relations.empty() || s.auto_unroll_max_step != 0 || s.storage_align_factor != 0) return false;
  for (size_t i = 0; i < s.iters.size(); ++i)
    if (s.iters[i].node != static_cast<int>(i) || s.iters[i].annotation != IterAnnotation::kNone) return false;
  return true;
}

absl::Status State::Apply(const Step& step) {
  // A rewritten weight layout is computed at build time, not by the kernel: nothing schedules it.
  const int target = std::visit([](const auto& s) { return s.stage; }, step);
  if (target >= 0 && target < static_cast<int>(stages_.size()) && stages_[target].scope == kLayoutScope)
    return absl::InvalidArgumentError(StrCat(StepTag(step), " stage ", target,
                                             ": a rewritten weight layout is computed at build time, not scheduled"));
  // Steps that add a stage, reorder loops or move a stage can take a reader of an attached
  // stage out of the loop it is computed at; they are applied to a copy and kept only if
  // every attachment still holds.
  bool may_break_attachments =
      std::holds_alternative<CacheWriteStep>(step) || std::holds_alternative<CacheReadStep>(step) ||
      std::holds_alternative<RfactorStep>(step) || std::holds_alternative<ReorderStep>(step) ||
      std::holds_alternative<ComputeAtStep>(step) || std::holds_alternative<ComputeRootStep>(step) ||
      std::holds_alternative<ComputeInlineStep>(step) || std::holds_alternative<LayoutRewriteStep>(step);
  if (!may_break_attachments) {
    if (auto s = ApplyStep(step, this); !s.ok()) return s;
    steps_.push_back(step);
    return absl::OkStatus();
  }
  State next = *this;
  if (auto s = ApplyStep(step, &next); !s.ok()) return s;
  for (const Stage& st : next.stages_) {
    if (st.location != ComputeLocation::kAt) continue;
    std::string problem = AttachmentProblem(next, st.tensor_id, st.attach_stage, st.attach_node);
    if (!problem.empty())
      return absl::InvalidArgumentError(StrCat(StepTag(step), ": stage ", st.tensor_id, " is computed at stage ",
                                               st.attach_stage, ", which would no longer hold: ", problem));
  }
  next.steps_.push_back(step);
  *this = std::move(next);
  return absl::OkStatus();
}

std::vector<int> State::EffectiveConsumers(int stage) const {
  std::vector<int> out;
  for (int c : dag_->consumers(stage)) {
    std::vector<int> found = stages_[c].location == ComputeLocation::kInlined ? EffectiveConsumers(c) : std::vector<int>{c};
    for (int f : found)
      if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

absl::Status State::Split(int stage, int iter, std::vector<std::optional<int64_t>> lengths) {
  int64_t extent = kUnknownExtent;
  if (stage >= 0 && stage < static_cast<int>(stages_.size()) && iter >= 0 &&
      iter < static_cast<int>(stages_[stage].iters.size()))
    extent = stages_[stage].node_of(iter).extent;
  return Apply(SplitStep{stage, iter, extent, std::move(lengths)});
}

absl::Status State::Reorder(int stage, std::vector<int> order) { return Apply(ReorderStep{stage, std::move(order)}); }
absl::Status State::Fuse(int stage, std::vector<int> iters) { return Apply(FuseStep{stage, std::move(iters)}); }
absl::Status State::Annotate(int stage, int iter, IterAnnotation a) { return Apply(AnnotationStep{stage, iter, a}); }
absl::Status State::PragmaAutoUnroll(int stage, int iter, int max_step) {
  return Apply(PragmaStep{stage, iter, max_step});
}

absl::Status State::ComputeAt(int stage, int target_stage, int target_iter) {
  return Apply(ComputeAtStep{stage, target_stage, target_iter});
}
absl::Status State::ComputeInline(int stage) { return Apply(ComputeInlineStep{stage}); }
absl::Status State::ComputeRoot(int stage) { return Apply(ComputeRootStep{stage}); }
absl::Status State::CacheWrite(int stage, std::string scope) { return Apply(CacheWriteStep{stage, std::move(scope)}); }
absl::Status State::CacheRead(int stage, std::string scope, std::vector<int> readers) {
  return Apply(CacheReadStep{stage, std::move(scope), std::move(readers)});
}
absl::Status State::Rfactor(int stage, int iter, int factor_axis) {
  return Apply(RfactorStep{stage, iter, factor_axis});
}
absl::Status State::LayoutRewrite(int placeholder, int reader) {
  return Apply(LayoutRewriteStep{placeholder, reader});
}
absl::Status State::StorageAlign(int stage, int axis, int factor, int offset) {
  return Apply(StorageAlignStep{stage, axis, factor, offset});
}
absl::Status State::FollowSplit(int stage, int iter, int src_step, int n_split) {
  return Apply(FollowSplitStep{stage, iter, src_step, n_split});
}
absl::Status State::FollowFusedSplit(int stage, int iter, std::vector<int> src_steps, int level, bool factor_or_nparts) {
  return Apply(FollowFusedSplitStep{stage, iter, std::move(src_steps), level, factor_or_nparts});
}

std::vector<int> State::AttachedAt(int stage, int node) const {
  std::vector<int> out;
  for (int s = 0; s < static_cast<int>(stages_.size()); ++s)
    if (stages_[s].location == ComputeLocation::kAt && stages_[s].attach_stage == stage && stages_[s].attach_node == node)
      out.push_back(s);
  return out;
}

bool State::IsConcrete() const {
  for (const Stage& s : stages_)
    for (const Iterator& it : s.iters)
      if (s.nodes[it.node].extent == kUnknownExtent) return false;
  return true;
}

std::string State::ToJson() const { return StepsToJson(steps_); }
std::string State::Hash() const { return Sha256Hex(ToJson()); }

absl::StatusOr<State> State::FromJson(std::shared_ptr<const te::ComputeDag> dag, std::string_view json) {
  auto steps = StepsFromJson(json);
  if (!steps.ok()) return steps.status();
  State state(std::move(dag));
  for (size_t i = 0; i < steps->size(); ++i) {
    if (auto s = state.Apply((*steps)[i]); !s.ok())
      return absl::InvalidArgumentError(StrCat("schedule step ", i, ": ", std::string(s.message())));
  }
  return state;
}

std::string State::ToString() const {
  std::string out;
  for (const Stage& s : stages_) {
    if (s.is_placeholder) continue;
    StrAppend(&out, dag_->tensor(s.tensor_id).name, ":");
    for (const Iterator& it : s.iters) {
      const IterNode& n = s.nodes[it.node];
      StrAppend(&out, " ", n.name);
      if (it.annotation != IterAnnotation::kNone) StrAppend(&out, "@", IterAnnotationName(it.annotation));
      if (n.extent == kUnknownExtent)
        StrAppend(&out, "(?)");
      else
        StrAppend(&out, "(", n.extent, ")");
    }
    if (s.auto_unroll_max_step) StrAppend(&out, " [auto_unroll_max_step=", s.auto_unroll_max_step, "]");
    if (s.storage_align_factor)
      StrAppend(&out, " [rows of axis ", s.storage_align_axis, " = ", s.storage_align_offset, " mod ",
                s.storage_align_factor, "]");
    if (s.location == ComputeLocation::kInlined) StrAppend(&out, " [inlined]");
    if (s.location == ComputeLocation::kAt)
      StrAppend(&out, " [at ", dag_->tensor(stages_[s.attach_stage].tensor_id).name, ".",
                stages_[s.attach_stage].nodes[s.attach_node].name, "]");
    out += "\n";
  }
  return out;
}

}  // namespace tunefarm::schedule
