#include "compiler/tir/lower.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "compiler/common/strings.h"
#include "compiler/tir/analyzer.h"
#include "compiler/tir/verify.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;
using schedule::IterKind;
using schedule::IterRelation;
using schedule::Stage;
using te::ExprKind;

constexpr int64_t kWorkspaceAlign = 64;

ForKind LoopKind(IterAnnotation a) {
  switch (a) {
    case IterAnnotation::kParallel: return ForKind::kParallel;
    case IterAnnotation::kVectorize: return ForKind::kVectorized;
    case IterAnnotation::kUnroll: return ForKind::kUnrolled;
    default: return ForKind::kSerial;
  }
}

Expr Idx(int64_t v) { return te::IntImm(te::kIndexType, v); }

// Buffers of the kernel: inputs, outputs, then intermediates in the workspace.
struct BufferPlan {
  std::vector<Buffer> buffers;
  std::vector<int> buffer_of_tensor;
  int num_args = 0;
  int64_t workspace_bytes = 0;
};

BufferPlan PlanBuffers(const te::ComputeDag& dag) {
  BufferPlan plan;
  plan.buffer_of_tensor.assign(dag.num_tensors(), -1);
  auto add = [&](int tensor, BufferScope scope, ArgRole role) {
    const te::TensorDef& t = dag.tensor(tensor);
    Buffer b{t.name, t.dtype, t.shape, scope, role};
    if (scope == BufferScope::kWorkspace) {
      b.workspace_offset = plan.workspace_bytes;
      plan.workspace_bytes += (b.NumBytes() + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
    }
    plan.buffer_of_tensor[tensor] = static_cast<int>(plan.buffers.size());
    plan.buffers.push_back(std::move(b));
  };
  for (int id : dag.inputs()) add(id, BufferScope::kArg, dag.tensor(id).is_constant ? ArgRole::kParam : ArgRole::kInput);
  for (int id : dag.outputs()) add(id, BufferScope::kArg, ArgRole::kOutput);
  plan.num_args = static_cast<int>(plan.buffers.size());
  for (int id : dag.stages())
    if (plan.buffer_of_tensor[id] < 0) add(id, BufferScope::kWorkspace, ArgRole::kInput);
  return plan;
}

Expr FlatIndex(const std::vector<Expr>& indices, const std::vector<int64_t>& shape) {
  Expr flat;
  for (size_t d = 0; d < indices.size(); ++d) {
    flat = flat.defined() ? flat * Idx(shape[d]) + indices[d] : indices[d];
  }
  return flat.defined() ? flat : Idx(0);
}

// Lowers one stage. Loop variables get ids from *next_var_id.
class StageLowering {
 public:
  StageLowering(const te::ComputeDag& dag, const Stage& stage, const BufferPlan& plan, int64_t* next_var_id)
      : dag_(dag), stage_(stage), plan_(plan), next_var_id_(next_var_id), tensor_(dag.tensor(stage.tensor_id)) {}

  Stmt Lower() {
    MakeLoopVars();
    DeriveNodeValues();
    std::vector<Expr> space, reduce;
    for (int i = 0; i < stage_.num_space_axes; ++i) space.push_back(value_[i]);
    for (int i = 0; i < stage_.num_reduce_axes; ++i) reduce.push_back(value_[stage_.num_space_axes + i]);
    Expr body = BindAxes(tensor_.body, space, reduce);
    int out_buffer = plan_.buffer_of_tensor[stage_.tensor_id];
    Expr out_index = FlatIndex(space, tensor_.shape);

    GuardSet none(guards_.size(), false);
    if (tensor_.reduce == te::ReduceKind::kNone)
      return Build(AllLeaves(), 0, {}, none, [&](const VarSet&, const GuardSet&) {
        return Store(out_buffer, out_index, body);
      });

    Expr acc = te::Load(tensor_.dtype, out_buffer, {out_index});
    Stmt update = Store(out_buffer, out_index, te::ReduceCombine(tensor_.reduce, acc, body));
    Stmt init = Store(out_buffer, out_index, te::ReduceIdentity(tensor_.reduce, tensor_.dtype));
    // The init goes right before the outermost reduce loop, looping over the space iterators
    // nested below that point (there are some when reduce loops were reordered outward).
    int first_reduce = 0;
    while (stage_.node_of(first_reduce).kind != IterKind::kReduce) ++first_reduce;
    std::vector<int> outer, inner_space, inner_all;
    for (int i = 0; i < static_cast<int>(stage_.iters.size()); ++i) {
      if (i < first_reduce) {
        outer.push_back(i);
        continue;
      }
      inner_all.push_back(i);
      if (stage_.node_of(i).kind == IterKind::kSpace) inner_space.push_back(i);
    }
    return Build(outer, 0, {}, none, [&](const VarSet& bound, const GuardSet& emitted) {
      auto leaf = [](const Stmt& s) { return [s](const VarSet&, const GuardSet&) { return s; }; };
      Stmt init_nest = FreshenLoopVars(Build(inner_space, 0, bound, emitted, leaf(init)), next_var_id_);
      return Seq({init_nest, Build(inner_all, 0, bound, emitted, leaf(update))});
    });
  }

 private:
  using VarSet = std::vector<int64_t>;  // loop variables bound so far
  using GuardSet = std::vector<bool>;   // guards already checked by an enclosing statement
  using InnerFn = std::function<Stmt(const VarSet&, const GuardSet&)>;

  std::vector<int> AllLeaves() const {
    std::vector<int> all;
    for (size_t i = 0; i < stage_.iters.size(); ++i) all.push_back(static_cast<int>(i));
    return all;
  }

  void MakeLoopVars() {
    value_.assign(stage_.nodes.size(), Expr());
    loop_var_.resize(stage_.iters.size());
    for (size_t i = 0; i < stage_.iters.size(); ++i) {
      const auto& node = stage_.node_of(static_cast<int>(i));
      loop_var_[i] = te::MakeVar(StrCat(tensor_.name, ".", node.name), (*next_var_id_)++);
      value_[stage_.iters[i].node] = loop_var_[i];
    }
  }

  // Walks the relations newest first, so every relation's outputs have values before its inputs
  // are derived from them.
  void DeriveNodeValues() {
    for (auto rel = stage_.relations.rbegin(); rel != stage_.relations.rend(); ++rel) {
      if (rel->kind == IterRelation::kSplit) {
        Expr v = value_[rel->to[0]];
        int64_t covered = stage_.nodes[rel->to[0]].extent;
        for (size_t i = 1; i < rel->to.size(); ++i) {
          int64_t ext = stage_.nodes[rel->to[i]].extent;
          v = v * Idx(ext) + value_[rel->to[i]];
          covered *= ext;
        }
        value_[rel->from[0]] = v;
        if (covered != stage_.nodes[rel->from[0]].extent) {
          guards_.push_back(te::Lt(v, Idx(stage_.nodes[rel->from[0]].extent)));
          guard_vars_.push_back(VarsOf(guards_.back()));
        }
      } else {
        Expr fused = value_[rel->to[0]];
        int64_t inner_extent = 1;
        for (size_t i = rel->from.size(); i-- > 0;) {
          int64_t ext = stage_.nodes[rel->from[i]].extent;
          Expr v = inner_extent == 1 ? fused : fused / Idx(inner_extent);
          value_[rel->from[i]] = i == 0 ? v : v % Idx(ext);
          inner_extent *= ext;
        }
      }
    }
  }

  static VarSet VarsOf(const Expr& e) {
    VarSet vars;
    te::Visit(e, [&](const Expr& n) {
      if (n->kind == ExprKind::kVar) vars.push_back(n->int_value);
    });
    return vars;
  }

  // Loops over leaves[pos..] around inner(...). A guard is checked as soon as every variable it
  // uses is bound, so a tail check sits as far out as it can; `emitted` tracks what enclosing
  // statements already checked.
  Stmt Build(const std::vector<int>& leaves, size_t pos, VarSet bound, GuardSet emitted, const InnerFn& inner) {
    std::vector<Expr> ready;
    for (size_t g = 0; g < guards_.size(); ++g) {
      if (emitted[g]) continue;
      bool all_bound = true;
      for (int64_t v : guard_vars_[g]) all_bound &= std::find(bound.begin(), bound.end(), v) != bound.end();
      if (!all_bound) continue;
      emitted[g] = true;
      ready.push_back(guards_[g]);
    }
    Stmt body;
    if (pos == leaves.size()) {
      body = inner(bound, emitted);
    } else {
      int leaf = leaves[pos];
      bound.push_back(loop_var_[leaf]->int_value);
      Stmt loop_body = Build(leaves, pos + 1, bound, emitted, inner);
      body = For(loop_var_[leaf], Idx(stage_.node_of(leaf).extent), LoopKind(stage_.iters[leaf].annotation), loop_body);
    }
    if (ready.empty()) return body;
    Expr cond = ready[0];
    for (size_t i = 1; i < ready.size(); ++i) cond = te::And(cond, ready[i]);
    return IfThenElse(cond, body);
  }

  Expr BindAxes(const Expr& body, const std::vector<Expr>& space, const std::vector<Expr>& reduce) const {
    return te::Rewrite(body, [&](const Expr& e) -> Expr {
      switch (e->kind) {
        case ExprKind::kAxis: return space[e->int_value];
        case ExprKind::kReduceAxis: return reduce[e->int_value];
        case ExprKind::kLoad: {
          const te::TensorDef& src = dag_.tensor(static_cast<int>(e->int_value));
          return te::Load(e->dtype, plan_.buffer_of_tensor[e->int_value], {FlatIndex(e->operands, src.shape)});
        }
        default: return Expr();
      }
    });
  }

  const te::ComputeDag& dag_;
  const Stage& stage_;
  const BufferPlan& plan_;
  int64_t* next_var_id_;
  const te::TensorDef& tensor_;
  std::vector<Expr> value_;     // per iterator node: its value in terms of loop variables
  std::vector<Expr> loop_var_;  // per current iterator
  std::vector<Expr> guards_;    // conditions a point must meet (non-dividing splits)
  std::vector<VarSet> guard_vars_;
};

// Marks inner serial loops as unrolled while the unrolled body stays under max_step statements.
Stmt AutoUnroll(const Stmt& s, int max_step, int64_t* size) {
  if (!s.defined()) return *size = 0, s;
  switch (s->kind) {
    case StmtKind::kStore:
      *size = 1;
      return s;
    case StmtKind::kIf: {
      int64_t a = 0, b = 0;
      Stmt t = AutoUnroll(s->then_case, max_step, &a);
      Stmt e = AutoUnroll(s->else_case, max_step, &b);
      *size = a + b;
      return IfThenElse(s->cond, t, e);
    }
    case StmtKind::kSeq: {
      std::vector<Stmt> out;
      *size = 0;
      for (const Stmt& c : s->seq) {
        int64_t n = 0;
        out.push_back(AutoUnroll(c, max_step, &n));
        *size += n;
      }
      return Seq(std::move(out));
    }
    case StmtKind::kFor: {
      int64_t inner = 0, extent = 0;
      Stmt body = AutoUnroll(s->body, max_step, &inner);
      ForKind kind = s->for_kind;
      bool constant = te::IsConstInt(s->extent, &extent);
      *size = constant ? inner * extent : int64_t{1} << 40;
      if (kind == ForKind::kSerial && constant && *size <= max_step) kind = ForKind::kUnrolled;
      return For(s->loop_var, s->extent, kind, body);
    }
  }
  return s;
}

}  // namespace

absl::StatusOr<PrimFunc> Lower(const schedule::State& state, std::string_view name) {
  if (!state.IsConcrete()) return absl::FailedPreconditionError("cannot lower a sketch: some split lengths are unfilled");
  const te::ComputeDag& dag = state.dag();
  BufferPlan plan = PlanBuffers(dag);
  int64_t next_var_id = 0;
  std::vector<Stmt> nests;
  for (int tensor : dag.stages()) {
    const Stage& stage = state.stage(tensor);
    Stmt nest = StageLowering(dag, stage, plan, &next_var_id).Lower();
    if (stage.auto_unroll_max_step > 0) {
      int64_t size = 0;
      nest = AutoUnroll(nest, stage.auto_unroll_max_step, &size);
    }
    nests.push_back(nest);
  }
  PrimFunc f;
  f.name = std::string(name);
  f.buffers = std::move(plan.buffers);
  f.num_args = plan.num_args;
  f.workspace_bytes = plan.workspace_bytes;
  f.body = SimplifyStmt(Seq(std::move(nests)));
  if (!f.body.defined()) f.body = Seq({});
  if (auto s = Verify(f); !s.ok())
    return absl::InternalError(StrCat("lowering produced invalid loop IR: ", std::string(s.message())));
  return f;
}

}  // namespace tunefarm::tir
