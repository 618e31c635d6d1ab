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

std::vector<const StmtNode*> Stores(const Stmt& s) {
  std::vector<const StmtNode*> stores;
  PreOrderVisit(s, [&](const Stmt& st) {
    if (st->kind == StmtKind::kStore) stores.push_back(&*st);
  });
  return stores;
}

std::unordered_set<int> AllocatedIn(const Stmt& s) {
  std::unordered_set<int> allocated;
  PreOrderVisit(s, [&](const Stmt& st) {
    if (st->kind == StmtKind::kAllocate) allocated.insert(st->buffer);
  });
  return allocated;
}

// The buffers allocated inside the loop that each virtual thread needs its own copy of: those
// written with an index or a value that depends on the loop variable, directly or through
// another owned buffer.
std::unordered_set<int> OwnedBuffers(const Stmt& body, int64_t var) {
  const std::unordered_set<int> allocated = AllocatedIn(body);
  const std::vector<const StmtNode*> stores = Stores(body);
  std::unordered_set<int> owned;
  for (bool grew = true; grew;) {
    grew = false;
    for (const StmtNode* st : stores) {
      if (owned.count(st->buffer) || !allocated.count(st->buffer)) continue;
      if (UsesVar(st->index, var) || UsesVar(st->value, var) || ReadsAny(st->index, owned) ||
          ReadsAny(st->value, owned)) {
        owned.insert(st->buffer);
        grew = true;
      }
    }
  }
  return owned;
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
      return te::Load(n->dtype, static_cast<int>(n->int_value), {Offset(static_cast<int>(n->int_value), MutateExpr(n->operands[0]))});
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
    int64_t extent = 0;
    if (!te::IsConstInt(s->extent, &extent)) return For(s->loop_var, s->extent, ForKind::kSerial, body);
    const int64_t var = s->loop_var->int_value;
    std::unordered_map<int, int64_t> sizes;
    for (int b : OwnedBuffers(body, var)) sizes[b] = buffers_[b].NumElements();
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
