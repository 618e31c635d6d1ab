// The two walks over the loop IR that every pass is built from, so a pass overrides only the
// statement kinds it cares about and a new statement kind is added here once.
//
//  - StmtVisitor: reads. The default for each kind visits its expressions (through VisitExpr)
//    and its child statements, in program order.
//  - StmtMutator: rewrites. The default for each kind mutates its expressions (MutateExpr) and
//    children and rebuilds the node only when one of them changed, so unchanged subtrees stay
//    shared (as Halide's IRMutator does). A mutated statement may come back undefined, which
//    means "removed": a loop, an Allocate or an if whose body is gone goes too, and a sequence
//    drops it.
//
// A loop's variable is a binding, not a use: it is not passed to VisitExpr / MutateExpr.
#pragma once

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

class StmtVisitor {
 public:
  virtual ~StmtVisitor() = default;
  // Dispatches on the kind; an undefined statement is skipped.
  virtual void VisitStmt(const Stmt& s);

 protected:
  virtual void VisitExpr(const Expr&) {}
  virtual void VisitFor(const StmtNode& op);
  virtual void VisitStore(const StmtNode& op);
  virtual void VisitIf(const StmtNode& op);
  virtual void VisitSeq(const StmtNode& op);
  virtual void VisitAllocate(const StmtNode& op);
  virtual void VisitBarrier(const StmtNode&) {}
};

class StmtMutator {
 public:
  virtual ~StmtMutator() = default;
  // Dispatches on the kind; an undefined statement stays undefined.
  virtual Stmt MutateStmt(const Stmt& s);

 protected:
  virtual Expr MutateExpr(const Expr& e) { return e; }
  virtual Stmt MutateFor(const Stmt& s);
  virtual Stmt MutateStore(const Stmt& s);
  virtual Stmt MutateIf(const Stmt& s);
  virtual Stmt MutateSeq(const Stmt& s);
  virtual Stmt MutateAllocate(const Stmt& s);
  virtual Stmt MutateBarrier(const Stmt& s) { return s; }

  // Rebuilders for overrides: each returns `s` itself when nothing differs from it, and
  // applies the removal rules above.
  static Stmt RebuildFor(const Stmt& s, const Expr& extent, const Stmt& body);
  static Stmt RebuildIf(const Stmt& s, const Expr& cond, const Stmt& then_case, const Stmt& else_case);
};

// Calls fn(stmt) on every statement, parents before children.
template <typename Fn>
void PreOrderVisit(const Stmt& s, Fn&& fn) {
  struct Walker : StmtVisitor {
    Fn& f;
    explicit Walker(Fn& fn) : f(fn) {}
    void VisitStmt(const Stmt& st) override {
      if (!st.defined()) return;
      f(st);
      StmtVisitor::VisitStmt(st);
    }
  } walker(fn);
  walker.VisitStmt(s);
}

}  // namespace tunefarm::tir
