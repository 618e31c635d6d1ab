#include "compiler/tir/lower.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "common/strings.h"
#include "compiler/tir/analyzer.h"
#include "compiler/tir/loop_partition.h"
#include "compiler/tir/skip_padded_taps.h"
#include "compiler/tir/auto_unroll.h"
#include "compiler/tir/buffer_plan.h"
#include "compiler/tir/injected_bug.h"
#include "compiler/tir/region_inference.h"
#include "compiler/tir/verify.h"
#include "compiler/tir/virtual_thread.h"

namespace tunefarm::tir {
namespace {

using schedule::ComputeLocation;
using schedule::IterAnnotation;
using schedule::IterKind;
using schedule::IterRelation;
using schedule::Stage;
using te::ExprKind;

ForKind LoopKind(IterAnnotation a) {
  switch (a) {
    case IterAnnotation::kParallel: return ForKind::kParallel;
    case IterAnnotation::kVectorize: return ForKind::kVectorized;
    case IterAnnotation::kUnroll: return ForKind::kUnrolled;
    case IterAnnotation::kNone: return ForKind::kSerial;
    case IterAnnotation::kVThread: return ForKind::kVirtualThread;
    default: return ForKind::kThreadBinding;
  }
}

ThreadAxis LoopThreadAxis(IterAnnotation a) {
  if (!schedule::IsThreadBinding(a) || a == IterAnnotation::kVThread) return ThreadAxis::kNone;
  return static_cast<ThreadAxis>(static_cast<int>(a) - static_cast<int>(IterAnnotation::kBlockX) +
                                 static_cast<int>(ThreadAxis::kBlockX));
}

Expr Idx(int64_t v) { return te::IntImm(te::kIndexType, v); }

using VarSet = std::vector<int64_t>;  // loop variables bound so far

// Shared by the stages of one kernel.
struct LoweringContext {
  const schedule::State& state;
  BufferPlan& plan;  // local buffers get their shape when their region is known
  int64_t next_var_id = 0;
  std::vector<Expr> inlined_bodies;  // per tensor: its body with inlined producers substituted
  // Per local stage: the region its buffer holds, in the loop variables of the loops enclosing
  // its attach point (every reader runs inside that loop).
  std::unordered_map<int, std::vector<AxisRegion>> local_regions;
  // The variables of loops bound to a threadIdx axis or a virtual thread, with their extents: a
  // shared stage's region is relaxed over those around it, whichever stage's loops they are.
  std::unordered_map<int64_t, int64_t> thread_loop_extents;
};

// A body with every read of an inlined stage replaced by that stage's (recursively inlined)
// body at the read's indices. Stays at the te level (axes, tensor ids).
Expr InlineProducers(const Expr& body, LoweringContext* ctx) {
  return te::Rewrite(body, [&](const Expr& e) -> Expr {
    if (e->kind != ExprKind::kLoad) return Expr();
    int t = static_cast<int>(e->int_value);
    if (ctx->state.stage(t).location != ComputeLocation::kInlined) return Expr();
    Expr& inlined = ctx->inlined_bodies[t];
    if (!inlined.defined()) inlined = InlineProducers(ctx->state.dag().tensor(t).body, ctx);
    const std::vector<Expr>& indices = e->operands;
    return te::Rewrite(inlined, [&](const Expr& n) -> Expr {
      return n->kind == ExprKind::kAxis ? indices[n->int_value] : Expr();
    });
  });
}

Expr FlatIndex(const std::vector<Expr>& indices, const std::vector<int64_t>& shape) {
  Expr flat;
  for (size_t d = 0; d < indices.size(); ++d) flat = flat.defined() ? flat * Idx(shape[d]) + indices[d] : indices[d];
  return flat.defined() ? flat : Idx(0);
}

// Lowers one stage: at the root (no region), or inside a consumer's loop over `region`.
class StageLowering {
 public:
  // `virtual_threads`: the product of the virtual-thread loops around the stage's attach point.
  StageLowering(LoweringContext* ctx, int stage_id, const std::vector<AxisRegion>* region, int64_t virtual_threads = 1)
      : ctx_(*ctx),
        stage_id_(stage_id),
        stage_(ctx->state.stage(stage_id)),
        tensor_(ctx->state.dag().tensor(stage_.tensor_id)),
        region_(region),
        virtual_threads_(virtual_threads) {}

  // The stage's nest with its auto-unroll pragma applied (attached stages keep theirs too).
  Stmt Lower(const VarSet& enclosing) {
    Stmt nest = LowerNest(enclosing);
    if (stage_.auto_unroll_max_step <= 0) return nest;
    return AutoUnroll(nest, stage_.auto_unroll_max_step, virtual_threads_);
  }

 private:
  Stmt LowerNest(const VarSet& enclosing) {
    ComputeExtents();
    MakeLoopVars();
    DeriveNodeValues();
    std::vector<Expr> space, reduce;
    for (int i = 0; i < stage_.num_space_axes; ++i) {
      space.push_back(region_ ? (*region_)[i].min + value_[i] : value_[i]);
      if (region_) AddRegionGuards(space.back(), tensor_.shape[i]);
    }
    for (int i = 0; i < stage_.num_reduce_axes; ++i) reduce.push_back(value_[stage_.num_space_axes + i]);
    te_body_ = InlineProducers(tensor_.body, &ctx_);
    bound_body_ = BindAxes(te_body_, space, reduce);
    InferAttachedRegions();
    Expr body = ToBufferLoads(bound_body_);
    int out_buffer = ctx_.plan.buffer_of_tensor[stage_.tensor_id];
    Expr out_index = OutputIndex(space);

    GuardSet none(guards_.size(), false);
    if (tensor_.reduce == te::ReduceKind::kNone)
      return Build(AllLeaves(), 0, enclosing, none, true, Leaf(Store(out_buffer, out_index, body)));

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
    if (LoopThreadAxis(stage_.iters.back().annotation) == ThreadAxis::kThreadX &&
        stage_.node_of(static_cast<int>(stage_.iters.size()) - 1).kind == IterKind::kReduce) {
      return Build(outer, 0, enclosing, none, true, [&](const VarSet& bound, const GuardSet& emitted) {
        return CrossThreadReduction(inner_all, bound, emitted, out_buffer, out_index, body);
      });
    }
    return Build(outer, 0, enclosing, none, true, [&](const VarSet& bound, const GuardSet& emitted) {
      // Stages attached inside the reduction are computed in the update nest only.
      Stmt init_nest = FreshenLoopVars(Build(inner_space, 0, bound, emitted, false, Leaf(init)), &ctx_.next_var_id);
      return Seq({init_nest, Build(inner_all, 0, bound, emitted, true, Leaf(update))});
    });
  }

  using GuardSet = std::vector<bool>;  // guards already checked by an enclosing statement
  using InnerFn = std::function<Stmt(const VarSet&, const GuardSet&)>;

  static InnerFn Leaf(Stmt s) {
    return [s](const VarSet&, const GuardSet&) { return s; };
  }

  // The reduction of one output point when its innermost reduce loop is bound to threadIdx.x
  // (checked by CheckCrossThreadReductions: no space loop and no attached stage inside the
  // reduction). Each thread reduces its share into its slot of a shared buffer; the slots are
  // combined by halves, n slots into ceil(n/2) at each step, each step a loop over the threads
  // (InsertSharedMemoryBarriers puts a barrier between them); thread 0 writes the result. Read
  // serially (the threads one after another) it computes the same, so the interpreter checks it.
  Stmt CrossThreadReduction(const std::vector<int>& loops, const VarSet& bound, const GuardSet& emitted, int out_buffer,
                            const Expr& out_index, const Expr& body) {
    const int last = loops.back();
    const int64_t threads = extent_[stage_.iters[last].node];
    const te::DType dtype = tensor_.dtype;
    Buffer scratch{StrCat(tensor_.name, ".red"), dtype, {threads}, BufferScope::kShared};
    const int slots = static_cast<int>(ctx_.plan.buffers.size());
    ctx_.plan.buffers.push_back(std::move(scratch));
    auto slot = [&](Expr i) { return te::Load(dtype, slots, {std::move(i)}); };
    auto over_threads = [&](const std::function<Stmt(const Expr&)>& body_of) {
      Expr t = te::MakeVar(StrCat(tensor_.name, ".tid"), ctx_.next_var_id++);
      return For(t, Idx(threads), ForKind::kThreadBinding, body_of(t), ThreadAxis::kThreadX);
    };
    std::vector<Stmt> steps;
    steps.push_back(over_threads([&](const Expr& t) { return Store(slots, t, te::ReduceIdentity(tensor_.reduce, dtype)); }));
    const Expr mine = loop_var_[last];
    steps.push_back(Build(loops, 0, bound, emitted, true,
                          Leaf(Store(slots, mine, te::ReduceCombine(tensor_.reduce, slot(mine), body)))));
    for (int64_t n = threads; n > 1;) {
      const int64_t half = (n + 1) / 2;
      steps.push_back(over_threads([&](const Expr& t) {
        return IfThenElse(te::Lt(t, Idx(n - half)),
                          Store(slots, t, te::ReduceCombine(tensor_.reduce, slot(t), slot(t + Idx(half)))));
      }));
      n = half;
    }
    steps.push_back(over_threads([&](const Expr& t) {
      return IfThenElse(te::Eq(t, Idx(0)), Store(out_buffer, out_index, slot(Idx(0))));
    }));
    return Allocate(slots, Seq(std::move(steps)));
  }

  std::vector<int> AllLeaves() const {
    std::vector<int> all;
    for (size_t i = 0; i < stage_.iters.size(); ++i) all.push_back(static_cast<int>(i));
    return all;
  }

  // Node extents for this lowering: the schedule's, or, inside a consumer, recomputed from the
  // region the consumer needs (split outers and fused extents follow their inputs).
  void ComputeExtents() {
    extent_.clear();
    for (const auto& n : stage_.nodes) extent_.push_back(n.extent);
    if (!region_) return;
    for (int i = 0; i < stage_.num_space_axes; ++i) extent_[i] = (*region_)[i].extent;
    std::vector<bool> thread_bound(stage_.nodes.size(), false);
    for (const auto& it : stage_.iters) thread_bound[it.node] = IsThreadAxis(LoopThreadAxis(it.annotation));
    for (const IterRelation& rel : stage_.relations) {
      if (rel.kind == IterRelation::kSplit) {
        // Innermost first, an inner loop runs no more iterations than the region leaves it: a
        // stage computed below one of its own tile levels (a register tile at a consumer's
        // thread loop) needs none of that level's iterations, which would otherwise all run and
        // be guarded away. TVM's bound inference does the same. A thread-bound loop keeps its
        // extent, the launch's.
        int64_t remaining = extent_[rel.from[0]];
        for (size_t i = rel.to.size(); i-- > 1;) {
          if (!thread_bound[rel.to[i]]) extent_[rel.to[i]] = std::min(extent_[rel.to[i]], remaining);
          remaining = (remaining + extent_[rel.to[i]] - 1) / extent_[rel.to[i]];
        }
        extent_[rel.to[0]] = remaining;
      } else {
        int64_t product = 1;
        for (int f : rel.from) product *= extent_[f];
        extent_[rel.to[0]] = product;
      }
    }
  }

  void MakeLoopVars() {
    value_.assign(stage_.nodes.size(), Expr());
    loop_var_.resize(stage_.iters.size());
    for (size_t i = 0; i < stage_.iters.size(); ++i) {
      const auto& node = stage_.node_of(static_cast<int>(i));
      loop_var_[i] = te::MakeVar(StrCat(tensor_.name, ".", node.name), ctx_.next_var_id++);
      value_[stage_.iters[i].node] = loop_var_[i];
      const IterAnnotation a = stage_.iters[i].annotation;
      if (IsThreadAxis(LoopThreadAxis(a)) || a == IterAnnotation::kVThread)
        ctx_.thread_loop_extents[loop_var_[i]->int_value] = extent_[stage_.iters[i].node];
    }
  }

  void AddGuard(Expr g) {
    guard_vars_.push_back(VarsOf(g));
    guards_.push_back(std::move(g));
  }

  // Inside a consumer the region may hang over the tensor's edge (a tail of the consumer's
  // split): those points are skipped.
  void AddRegionGuards(const Expr& coord, int64_t extent) {
    AddGuard(te::Ge(coord, Idx(0)));
    AddGuard(te::Lt(coord, Idx(extent)));
  }

  // Walks the relations newest first, so every relation's outputs have values before its inputs
  // are derived from them.
  void DeriveNodeValues() {
    for (auto rel = stage_.relations.rbegin(); rel != stage_.relations.rend(); ++rel) {
      if (rel->kind == IterRelation::kSplit) {
        Expr v = value_[rel->to[0]];
        int64_t covered = extent_[rel->to[0]];
        for (size_t i = 1; i < rel->to.size(); ++i) {
          v = v * Idx(extent_[rel->to[i]]) + value_[rel->to[i]];
          covered *= extent_[rel->to[i]];
        }
        value_[rel->from[0]] = v;
        bool drop = CurrentInjectedBug() == InjectedBug::kDropSplitTailGuard;
        if (covered != extent_[rel->from[0]] && !drop) AddGuard(te::Lt(v, Idx(extent_[rel->from[0]])));
      } else {
        Expr fused = value_[rel->to[0]];
        int64_t inner_extent = 1;
        for (size_t i = rel->from.size(); i-- > 0;) {
          Expr v = inner_extent == 1 ? fused : fused / Idx(inner_extent);
          value_[rel->from[i]] = i == 0 ? v : v % Idx(extent_[rel->from[i]]);
          inner_extent *= extent_[rel->from[i]];
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
  // statements already checked. Stages attached at a loop are computed first thing inside it.
  Stmt Build(const std::vector<int>& leaves, size_t pos, VarSet bound, GuardSet emitted, bool with_attached,
             const InnerFn& inner) {
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
      Stmt loop_body = Build(leaves, pos + 1, bound, emitted, with_attached, inner);
      if (with_attached) loop_body = WithAttached(leaf, bound, loop_body);
      IterAnnotation annotation = stage_.iters[leaf].annotation;
      body = For(loop_var_[leaf], Idx(extent_[stage_.iters[leaf].node]), LoopKind(annotation), loop_body,
                 LoopThreadAxis(annotation));
    }
    if (ready.empty()) return body;
    Expr cond = ready[0];
    for (size_t i = 1; i < ready.size(); ++i) cond = te::And(cond, ready[i]);
    return IfThenElse(cond, body);
  }

  // A local or shared stage's buffer holds just the region its consumer's loop needs, indexed
  // from the region's corner (a register tile, a block's shared tile); every other buffer holds
  // the whole tensor.
  bool IsLocal(int tensor) const {
    return IsAllocatedScope(ctx_.plan.buffers[ctx_.plan.buffer_of_tensor[tensor]].scope);
  }
  bool IsShared(int tensor) const {
    return ctx_.plan.buffers[ctx_.plan.buffer_of_tensor[tensor]].scope == BufferScope::kShared;
  }

  Expr OutputIndex(const std::vector<Expr>& space) const {
    if (!region_ || !IsLocal(stage_.tensor_id)) return FlatIndex(space, tensor_.shape);
    std::vector<Expr> offsets;
    for (int i = 0; i < stage_.num_space_axes; ++i) offsets.push_back(value_[i]);
    return FlatIndex(offsets, AllocatedShape(stage_.tensor_id));
  }

  // A local or shared buffer's shape: its region's, with a dimension padded as a storage_align
  // step asks (the padding is never read; with only dimensions of 1 after it, its padded length
  // is the stride of the dimension before it).
  const std::vector<int64_t>& AllocatedShape(int tensor) const {
    return ctx_.plan.buffers[ctx_.plan.buffer_of_tensor[tensor]].shape;
  }
  static std::vector<int64_t> PaddedShape(const std::vector<AxisRegion>& region, const Stage& stage) {
    std::vector<int64_t> shape;
    for (const AxisRegion& r : region) shape.push_back(r.extent);
    return stage.AlignedShape(std::move(shape));
  }

  // For each loop that stages are attached at: the region of each of them that one iteration
  // of the loop reads, through this stage's body below the loop and through the bodies of the
  // other stages attached here at or below it (readers first, so their regions are known). A
  // local stage's buffer takes the region's shape.
  void InferAttachedRegions() {
    attached_.assign(stage_.iters.size(), {});
    std::vector<std::pair<int, size_t>> order;  // (producer, leaf), readers first
    for (size_t leaf = 0; leaf < stage_.iters.size(); ++leaf) {
      attached_[leaf] = ctx_.state.AttachedAt(stage_id_, stage_.iters[leaf].node);
      for (int producer : attached_[leaf]) order.push_back({producer, leaf});
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [producer, leaf] : order) {
      std::unordered_map<int64_t, int64_t> inner;
      for (size_t i = leaf + 1; i < stage_.iters.size(); ++i)
        inner[loop_var_[i]->int_value] = extent_[stage_.iters[i].node];
      const int producer_tensor = ctx_.state.stage(producer).tensor_id;
      // A shared tile serves every thread of the block: its region spans the thread-bound loops
      // around the attach point too, this stage's or a consumer's further out, so it is the same
      // for all of them (TVM's thread relaxation). Loops that do not enclose it do not occur.
      if (IsShared(producer_tensor)) inner.insert(ctx_.thread_loop_extents.begin(), ctx_.thread_loop_extents.end());
      std::vector<std::vector<Expr>> accesses = ReadsOf(bound_body_, producer_tensor);
      for (const auto& [reader, reader_region] : region_of_) {
        const te::TensorDef& r = ctx_.state.dag().tensor(ctx_.state.stage(reader).tensor_id);
        const Expr reader_body = InlineProducers(r.body, &ctx_);
        if (ReadsOf(reader_body, producer_tensor).empty()) continue;  // attached here, but not a reader
        std::vector<Expr> space, reduce;
        for (const AxisRegion& d : reader_region) space.push_back(d.min + FreshVar(d.extent, &inner));
        for (int64_t e : r.reduce_extents) reduce.push_back(FreshVar(e, &inner));
        for (auto& a : ReadsOf(BindAxes(reader_body, space, reduce), producer_tensor)) accesses.push_back(std::move(a));
      }
      std::vector<AxisRegion> region = InferRegion(accesses, inner, ctx_.state.dag().tensor(producer_tensor).shape);
      if (IsLocal(producer_tensor)) {
        ctx_.plan.buffers[ctx_.plan.buffer_of_tensor[producer_tensor]].shape =
            PaddedShape(region, ctx_.state.stage(producer));
        ctx_.local_regions[producer_tensor] = region;
      }
      region_of_[producer] = std::move(region);
    }
  }

  static std::vector<std::vector<Expr>> ReadsOf(const Expr& body, int tensor) {
    std::vector<std::vector<Expr>> reads;
    te::Visit(body, [&](const Expr& e) {
      if (e->kind == ExprKind::kLoad && e->int_value == tensor) reads.push_back(e->operands);
    });
    return reads;
  }

  // A variable that only region inference sees: one axis of an attached reader's loops.
  Expr FreshVar(int64_t extent, std::unordered_map<int64_t, int64_t>* inner) {
    Expr v = te::MakeVar("region", ctx_.next_var_id++);
    (*inner)[v->int_value] = extent;
    return v;
  }

  // Nests of the stages attached at iterator `leaf`, each over its region; the loop's body
  // (`rest`) follows them, and local buffers are allocated around both.
  Stmt WithAttached(int leaf, const VarSet& bound, Stmt rest) {
    std::vector<Stmt> nests;
    int64_t virtual_threads = virtual_threads_;
    for (int i = 0; i <= leaf; ++i)
      if (stage_.iters[i].annotation == IterAnnotation::kVThread) virtual_threads *= extent_[stage_.iters[i].node];
    for (int producer : attached_[leaf])
      nests.push_back(StageLowering(&ctx_, producer, &region_of_.at(producer), virtual_threads).Lower(bound));
    nests.push_back(std::move(rest));
    Stmt body = Seq(std::move(nests));
    for (auto it = attached_[leaf].rbegin(); it != attached_[leaf].rend(); ++it) {
      int tensor = ctx_.state.stage(*it).tensor_id;
      if (IsLocal(tensor)) body = Allocate(ctx_.plan.buffer_of_tensor[tensor], body);
    }
    return body;
  }

  // Replaces axes by their loop expressions. Reads keep their multi-dimensional indices, for
  // region inference of attached stages.
  Expr BindAxes(const Expr& body, const std::vector<Expr>& space, const std::vector<Expr>& reduce) {
    return te::Rewrite(body, [&](const Expr& e) -> Expr {
      switch (e->kind) {
        case ExprKind::kAxis: return space[e->int_value];
        case ExprKind::kReduceAxis: return reduce[e->int_value];
        default: return Expr();
      }
    });
  }

  // Tensor reads become flat buffer loads; a local stage's from its region's corner.
  Expr ToBufferLoads(const Expr& body) {
    return te::Rewrite(body, [&](const Expr& e) -> Expr {
      if (e->kind != ExprKind::kLoad) return Expr();
      const int tensor = static_cast<int>(e->int_value);
      const int buffer = ctx_.plan.buffer_of_tensor[tensor];
      auto local = ctx_.local_regions.find(tensor);
      if (local == ctx_.local_regions.end())
        return te::Load(e->dtype, buffer, {FlatIndex(e->operands, ctx_.state.dag().tensor(tensor).shape)});
      std::vector<Expr> offsets;
      for (size_t d = 0; d < e->operands.size(); ++d) {
        Expr offset = e->operands[d] - local->second[d].min;
        if (CurrentInjectedBug() == InjectedBug::kShiftLocalOffset && d + 1 == e->operands.size())
          offset = offset + Idx(1);
        offsets.push_back(offset);
      }
      return te::Load(e->dtype, buffer, {FlatIndex(offsets, AllocatedShape(tensor))});
    });
  }

  LoweringContext& ctx_;
  int stage_id_;
  const Stage& stage_;
  const te::TensorDef& tensor_;
  const std::vector<AxisRegion>* region_;
  const int64_t virtual_threads_;
  Expr te_body_, bound_body_;
  std::vector<int64_t> extent_;     // per iterator node
  std::vector<Expr> value_;         // per iterator node: its value in terms of loop variables
  std::vector<Expr> loop_var_;      // per current iterator
  std::vector<Expr> guards_;        // conditions a point must meet
  std::vector<VarSet> guard_vars_;  // the variables of each guard
  std::vector<std::vector<int>> attached_;  // per current iterator: the stages attached at it
  std::map<int, std::vector<AxisRegion>> region_of_;  // per attached stage: the region it computes
};

absl::StatusOr<PrimFunc> LowerWithPlan(const schedule::State& state, std::string_view name,
                                       const std::vector<int>& in_workspace) {
  const te::ComputeDag& dag = state.dag();
  BufferPlan plan = PlanBuffers(state, in_workspace);
  LoweringContext ctx{state, plan, 0, std::vector<Expr>(dag.num_tensors()), {}, {}};
  std::vector<Stmt> nests;
  for (int tensor : dag.stages()) {
    const Stage& stage = state.stage(tensor);
    if (stage.location != ComputeLocation::kRoot) continue;  // inlined, or emitted by its consumer
    if (stage.scope == schedule::kLayoutScope) continue;      // a parameter: computed at build time
    nests.push_back(StageLowering(&ctx, tensor, nullptr).Lower({}));
  }
  // Before the size checks: a virtual thread's own copies of its local buffers count.
  Stmt body = InjectVirtualThreads(Seq(std::move(nests)), &plan.buffers, &ctx.next_var_id);
  // A stage attached to its only reader is local by choice, not by its schedule's request: when
  // its region is too large for the stack, or the kernel's locals are, it stays a workspace
  // tensor, as before, and the kernel is lowered again.
  int64_t all_local_bytes = 0;
  for (const Buffer& b : plan.buffers)
    if (b.scope == BufferScope::kLocal) all_local_bytes += b.NumBytes();
  std::vector<int> demoted = in_workspace;
  for (int tensor : plan.attached_locals)
    if (all_local_bytes > kMaxLocalBytesPerFunc ||
        plan.buffers[plan.buffer_of_tensor[tensor]].NumBytes() > kMaxLocalBufferBytes)
      demoted.push_back(tensor);
  if (demoted.size() > in_workspace.size()) return LowerWithPlan(state, name, demoted);
  int64_t local_bytes = 0;
  for (const Buffer& b : plan.buffers) {
    if (b.scope != BufferScope::kLocal) continue;
    if (b.NumBytes() > kMaxLocalBufferBytes)
      return absl::InvalidArgumentError(StrCat("local buffer ", b.name, " needs ", b.NumBytes(), " bytes, over the ",
                                               kMaxLocalBufferBytes, "-byte limit of a local stage"));
    local_bytes += b.NumBytes();
  }
  if (local_bytes > kMaxLocalBytesPerFunc)
    return absl::InvalidArgumentError(
        StrCat("local buffers need ", local_bytes, " bytes in all, over the ", kMaxLocalBytesPerFunc, "-byte limit"));
  PrimFunc f;
  f.name = std::string(name);
  f.buffers = std::move(plan.buffers);
  f.num_args = plan.num_args;
  f.workspace_bytes = plan.workspace_bytes;
  f.body = SkipPaddedTaps(SimplifyStmt(body), f.buffers);
  // Padded borders split off (loop_partition.h); simplified again only when something was split.
  if (Stmt partitioned = PartitionLoops(f.body); !partitioned.same_as(f.body)) f.body = SimplifyStmt(partitioned);
  if (!f.body.defined()) f.body = Seq({});
  if (auto s = Verify(f); !s.ok())
    return absl::InternalError(StrCat("lowering produced invalid loop IR: ", std::string(s.message())));
  return f;
}

// A reduction whose innermost loop is bound to threadIdx.x is lowered as a cross-thread
// reduction (StageLowering::CrossThreadReduction), which needs the whole reduction to be that
// loop's business: no space loop and no attached stage inside its reduce loops.
absl::Status CheckCrossThreadReductions(const schedule::State& state) {
  for (int tensor : state.dag().stages()) {
    const Stage& st = state.stage(tensor);
    if (st.iters.empty() || st.location == ComputeLocation::kInlined) continue;
    const int last = static_cast<int>(st.iters.size()) - 1;
    if (st.iters[last].annotation != IterAnnotation::kThreadX || st.node_of(last).kind != IterKind::kReduce) continue;
    bool in_reduction = false;
    for (int i = 0; i <= last; ++i) {
      const schedule::IterNode& node = st.node_of(i);
      in_reduction |= node.kind == IterKind::kReduce;
      if (!in_reduction) continue;
      if (node.kind == IterKind::kSpace) {
        return absl::InvalidArgumentError(StrCat("stage ", state.dag().tensor(tensor).name, ": space loop ", node.name,
                                                 " inside a cross-thread reduction (reduce loop bound to threadIdx.x)"));
      }
      if (!state.AttachedAt(tensor, st.iters[i].node).empty()) {
        return absl::InvalidArgumentError(StrCat("stage ", state.dag().tensor(tensor).name, ": a stage is computed at reduce loop ", node.name,
                                                 " of a cross-thread reduction"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PrimFunc> Lower(const schedule::State& state, std::string_view name) {
  if (!state.IsConcrete()) return absl::FailedPreconditionError("cannot lower a sketch: some split lengths are unfilled");
  if (absl::Status s = CheckCrossThreadReductions(state); !s.ok()) return s;
  return LowerWithPlan(state, name, {});
}

}  // namespace tunefarm::tir
