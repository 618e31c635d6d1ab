#include "compiler/tir/stmt_functor.h"

#include "common/check.h"

namespace tunefarm::tir {

void StmtVisitor::VisitStmt(const Stmt& s) {
  if (!s.defined()) return;
  switch (s->kind) {
    case StmtKind::kFor: return VisitFor(*s);
    case StmtKind::kStore: return VisitStore(*s);
    case StmtKind::kIf: return VisitIf(*s);
    case StmtKind::kSeq: return VisitSeq(*s);
    case StmtKind::kAllocate: return VisitAllocate(*s);
    case StmtKind::kBarrier: return VisitBarrier(*s);
  }
  TF_CHECK(false, "unknown statement kind");
}

void StmtVisitor::VisitFor(const StmtNode& op) {
  VisitExpr(op.extent);
  VisitStmt(op.body);
}

void StmtVisitor::VisitStore(const StmtNode& op) {
  VisitExpr(op.index);
  VisitExpr(op.value);
}

void StmtVisitor::VisitIf(const StmtNode& op) {
  VisitExpr(op.cond);
  VisitStmt(op.then_case);
  VisitStmt(op.else_case);
}

void StmtVisitor::VisitSeq(const StmtNode& op) {
  for (const Stmt& c : op.seq) VisitStmt(c);
}

void StmtVisitor::VisitAllocate(const StmtNode& op) { VisitStmt(op.body); }

Stmt StmtMutator::MutateStmt(const Stmt& s) {
  if (!s.defined()) return s;
  switch (s->kind) {
    case StmtKind::kFor: return MutateFor(s);
    case StmtKind::kStore: return MutateStore(s);
    case StmtKind::kIf: return MutateIf(s);
    case StmtKind::kSeq: return MutateSeq(s);
    case StmtKind::kAllocate: return MutateAllocate(s);
    case StmtKind::kBarrier: return MutateBarrier(s);
  }
  TF_CHECK(false, "unknown statement kind");
  return s;
}

Stmt StmtMutator::RebuildFor(const Stmt& s, const Expr& extent, const Stmt& body) {
  if (!body.defined()) return Stmt();
  if (extent.same_as(s->extent) && body.same_as(s->body)) return s;
  return For(s->loop_var, extent, s->for_kind, body, s->thread_axis);
}

Stmt StmtMutator::RebuildIf(const Stmt& s, const Expr& cond, const Stmt& then_case, const Stmt& else_case) {
  if (!then_case.defined() && !else_case.defined()) return Stmt();
  if (!then_case.defined()) return IfThenElse(te::Not(cond), else_case);
  if (cond.same_as(s->cond) && then_case.same_as(s->then_case) && else_case.same_as(s->else_case)) return s;
  return IfThenElse(cond, then_case, else_case);
}

Stmt StmtMutator::MutateFor(const Stmt& s) {
  Expr extent = MutateExpr(s->extent);
  return RebuildFor(s, extent, MutateStmt(s->body));
}

Stmt StmtMutator::MutateStore(const Stmt& s) {
  Expr index = MutateExpr(s->index), value = MutateExpr(s->value);
  if (index.same_as(s->index) && value.same_as(s->value)) return s;
  return Store(s->buffer, index, value);
}

Stmt StmtMutator::MutateIf(const Stmt& s) {
  Expr cond = MutateExpr(s->cond);
  Stmt then_case = MutateStmt(s->then_case);
  return RebuildIf(s, cond, then_case, MutateStmt(s->else_case));
}

Stmt StmtMutator::MutateSeq(const Stmt& s) {
  std::vector<Stmt> kept;
  bool changed = false;
  for (const Stmt& c : s->seq) {
    Stmt m = MutateStmt(c);
    changed |= !m.same_as(c);
    if (m.defined()) kept.push_back(std::move(m));
  }
  if (!changed) return s;
  if (kept.empty()) return Stmt();
  return Seq(std::move(kept));
}

Stmt StmtMutator::MutateAllocate(const Stmt& s) {
  Stmt body = MutateStmt(s->body);
  if (!body.defined()) return Stmt();
  return body.same_as(s->body) ? s : Allocate(s->buffer, body);
}

}  // namespace tunefarm::tir
