#include "compiler/tir/virtual_thread.h"

#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/tir/analyzer.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

using te::ExprKind;

Expr Idx(int64_t v) { return te::IntImm(te::kIndexType, v); }

bool UsesVar(const Expr& e, int64_t var) {
  bool found = false;
  te::Visit(e, [&](const Expr& n) { found |= n->kind == ExprKind::kVar && n->int_value == var; });
  return found;
}

bool ReadsAny(const Expr& e, const std::unordered_set<int>& buffers) {
  bool found = false;
  te::Visit(e, [&](const Expr& n) { found |= n->kind == ExprKind::kLoad && buffers.count(static_cast<int>(n->int_value)); });
  return found;
}

// A store and what decides whether it runs: the conditions of the ifs and the extents of the
// loops around it, inside the virtual-thread loop.
struct StoreSite {
  const StmtNode* store;
  std::vector<Expr> control;
};

class StoreSiteCollector : public StmtVisitor {
 public:
  std::vector<StoreSite> sites;

 private:
  void VisitStore(const StmtNode& op) override { sites.push_back({&op, control_}); }
  void VisitIf(const StmtNode& op) override {
    control_.push_back(op.cond);
    StmtVisitor::VisitIf(op);
    control_.pop_back();
  }
  void VisitFor(const StmtNode& op) override {
    control_.push_back(op.extent);
    StmtVisitor::VisitFor(op);
    control_.pop_back();
  }
  std::vector<Expr> control_;
};

std::unordered_set<int> AllocatedIn(const Stmt& s) {
  std::unordered_set<int> allocated;
  PreOrderVisit(s, [&](const Stmt& st) {
    if (st->kind == StmtKind::kAllocate) allocated.insert(st->buffer);
  });
  return allocated;
}

// Whether a store writes something that differs between virtual threads, or only for some of
// them: its index, its value or what decides that it runs uses the variable or an owned buffer.
bool DependsOnVirtualThread(const StoreSite& site, int64_t var, const std::unordered_set<int>& owned) {
  auto depends = [&](const Expr& e) { return UsesVar(e, var) || ReadsAny(e, owned); };
  if (depends(site.store->index) || depends(site.store->value)) return true;
  for (const Expr& c : site.control)
    if (depends(c)) return true;
  return false;
}

// The buffers allocated inside the loop that each virtual thread needs its own copy of: those
// written by a store that depends on the virtual thread (directly, or through another owned
// buffer, or through the if that guards it).
std::unordered_set<int> OwnedBuffers(const std::vector<StoreSite>& sites, const std::unordered_set<int>& allocated,
                                     int64_t var) {
  std::unordered_set<int> owned;
  for (bool grew = true; grew;) {
    grew = false;
    for (const StoreSite& site : sites) {
      const int buffer = site.store->buffer;
      if (owned.count(buffer) || !allocated.count(buffer) || !DependsOnVirtualThread(site, var, owned)) continue;
      owned.insert(buffer);
      grew = true;
    }
  }
  return owned;
}

// A store to a buffer from outside the loop (an argument, the workspace) that is the same for
// every virtual thread and reads what the loop writes there: run once instead of once per
// virtual thread, an update in place (a producer in the workspace, accumulating) would change
// the result.
bool UpdatesOutsideTheSameForAll(const std::vector<StoreSite>& sites, const std::unordered_set<int>& allocated,
                                 const std::unordered_set<int>& owned, int64_t var) {
  std::unordered_set<int> written_outside;
  for (const StoreSite& site : sites)
    if (!allocated.count(site.store->buffer)) written_outside.insert(site.store->buffer);
  for (const StoreSite& site : sites) {
    if (allocated.count(site.store->buffer) || DependsOnVirtualThread(site, var, owned)) continue;
    if (ReadsAny(site.store->value, written_outside) || ReadsAny(site.store->index, written_outside)) return true;
  }
  return false;
}

// Offsets every access of an owned buffer by var * (its size), its copy for virtual thread var.
class OwnedCopyIndexer : public StmtMutator {
 public:
  OwnedCopyIndexer(const Expr& var, const std::unordered_map<int, int64_t>& sizes) : var_(var), sizes_(sizes) {}

 private:
  Expr Offset(int buffer, const Expr& index) const {
    auto it = sizes_.find(buffer);
    return it == sizes_.end() ? index : var_ * Idx(it->second) + index;
  }
  Expr MutateExpr(const Expr& e) override {
    return te::Rewrite(e, [&](const Expr& n) -> Expr {
      if (n->kind != ExprKind::kLoad || !sizes_.count(static_cast<int>(n->int_value))) return Expr();
      // Rewrite goes bottom up: the index's own owned loads are offset already.
      return te::Load(n->dtype, static_cast<int>(n->int_value), {Offset(static_cast<int>(n->int_value), n->operands[0])});
    });
  }
  Stmt MutateStore(const Stmt& s) override {
    Expr index = MutateExpr(s->index), value = MutateExpr(s->value);
    return Store(s->buffer, Offset(s->buffer, index), value);
  }

  Expr var_;
  const std::unordered_map<int, int64_t>& sizes_;
};

// Pushes one virtual-thread loop (var, extent) down a statement whose owned buffers are already
// indexed by var.
class Injector {
 public:
  Injector(const Expr& var, int64_t extent, int64_t* next_var_id) : var_(var), extent_(extent), next_var_id_(next_var_id) {}

  Stmt Inject(const Stmt& s) {
    if (!s.defined() || !Uses(s)) return s;
    switch (s->kind) {
      case StmtKind::kSeq: {
        std::vector<Stmt> parts;
        for (const Stmt& c : s->seq) parts.push_back(Inject(c));
        return Seq(std::move(parts));
      }
      case StmtKind::kAllocate:
        return Allocate(s->buffer, Inject(s->body));
      case StmtKind::kIf:
        if (UsesVar(s->cond, var_->int_value)) break;
        return IfThenElse(s->cond, Inject(s->then_case), Inject(s->else_case));
      case StmtKind::kFor:
        // Into serial, unrolled and thread-bound loops; a vector or parallel loop keeps its
        // body's shape.
        if (s->for_kind == ForKind::kVectorized || s->for_kind == ForKind::kParallel) break;
        if (UsesVar(s->extent, var_->int_value)) break;
        return For(s->loop_var, s->extent, s->for_kind, Inject(s->body), s->thread_axis);
      default:
        break;
    }
    return FreshenLoopVars(For(var_, Idx(extent_), ForKind::kUnrolled, s), next_var_id_);
  }

 private:
  bool Uses(const Stmt& s) const {
    bool found = false;
    struct Finder : StmtVisitor {
      int64_t var;
      bool* found;
      void VisitExpr(const Expr& e) override { *found |= UsesVar(e, var); }
    } finder;
    finder.var = var_->int_value;
    finder.found = &found;
    finder.VisitStmt(s);
    return found;
  }

  Expr var_;
  int64_t extent_;
  int64_t* next_var_id_;
};

class VirtualThreadLowering : public StmtMutator {
 public:
  VirtualThreadLowering(std::vector<Buffer>* buffers, int64_t* next_var_id) : buffers_(*buffers), next_var_id_(next_var_id) {}

 private:
  Stmt MutateFor(const Stmt& s) override {
    Stmt body = MutateStmt(s->body);  // inner virtual threads first
    if (s->for_kind != ForKind::kVirtualThread) return RebuildFor(s, s->extent, body);
    if (!body.defined()) return Stmt();
    int64_t extent = 0;  // a loop of unknown extent, which lowering never makes, stays serial
    if (!te::IsConstInt(s->extent, &extent)) return For(s->loop_var, s->extent, ForKind::kSerial, body);
    const int64_t var = s->loop_var->int_value;
    StoreSiteCollector collector;
    collector.VisitStmt(body);
    const std::unordered_set<int> allocated = AllocatedIn(body);
    const std::unordered_set<int> owned = OwnedBuffers(collector.sites, allocated, var);
    if (UpdatesOutsideTheSameForAll(collector.sites, allocated, owned, var))
      return For(s->loop_var, s->extent, ForKind::kSerial, body);
    std::unordered_map<int, int64_t> sizes;
    for (int b : owned) sizes[b] = buffers_[b].NumElements();
    // Indexed by var first, so that every access to an owned buffer counts as depending on the
    // virtual thread.
    Stmt indexed = OwnedCopyIndexer(s->loop_var, sizes).MutateStmt(body);
    for (const auto& [b, size] : sizes) buffers_[b].shape.insert(buffers_[b].shape.begin(), extent);
    return Injector(s->loop_var, extent, next_var_id_).Inject(indexed);
  }

  std::vector<Buffer>& buffers_;
  int64_t* next_var_id_;
};

}  // namespace

Stmt InjectVirtualThreads(const Stmt& body, std::vector<Buffer>* buffers, int64_t* next_var_id) {
  bool any = false;
  PreOrderVisit(body, [&](const Stmt& s) { any |= s->kind == StmtKind::kFor && s->for_kind == ForKind::kVirtualThread; });
  if (!any) return body;
  // Simplified first: a region's guards that always hold would stop the loop's descent (an if
  // on the virtual thread is a leaf) and leave it outside the loops it should be inside.
  return VirtualThreadLowering(buffers, next_var_id).MutateStmt(SimplifyStmt(body));
}

}  // namespace tunefarm::tir
