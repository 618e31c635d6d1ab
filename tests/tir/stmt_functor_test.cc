// The visitor and mutator every loop-IR pass is built on.
#include "compiler/tir/stmt_functor.h"

#include <gtest/gtest.h>

namespace tunefarm::tir {
namespace {

Expr Var(const char* name, int64_t id) { return te::MakeVar(name, id); }
Expr Idx(int64_t v) { return te::IntImm(te::kIndexType, v); }

// for i < 4 { for j < 8 { buf0[i*8+j] = 1 }; if (i < 2) { buf1[i] = 2 } }
Stmt SampleNest() {
  Expr i = Var("i", 0), j = Var("j", 1);
  Stmt inner = For(j, Idx(8), ForKind::kSerial, Store(0, i * Idx(8) + j, te::FloatImm(te::DType::kFloat32, 1)));
  Stmt guarded = IfThenElse(te::Lt(i, Idx(2)), Store(1, i, te::FloatImm(te::DType::kFloat32, 2)));
  return For(i, Idx(4), ForKind::kParallel, Seq({inner, guarded}));
}

TEST(StmtFunctor, VisitorSeesStatementsInProgramOrder) {
  std::vector<StmtKind> kinds;
  PreOrderVisit(Allocate(2, SampleNest()), [&](const Stmt& s) { kinds.push_back(s->kind); });
  EXPECT_EQ(kinds, (std::vector<StmtKind>{StmtKind::kAllocate, StmtKind::kFor, StmtKind::kSeq, StmtKind::kFor,
                                          StmtKind::kStore, StmtKind::kIf, StmtKind::kStore}));
}

TEST(StmtFunctor, VisitorPassesEveryExpressionButLoopVariables) {
  struct Counter : StmtVisitor {
    int exprs = 0;
    void VisitExpr(const Expr&) override { ++exprs; }
  } counter;
  counter.VisitStmt(SampleNest());
  // extents 4 and 8, two stores of (index, value), one condition
  EXPECT_EQ(counter.exprs, 2 + 4 + 1);
}

TEST(StmtFunctor, IdentityMutatorReturnsTheSameNodes) {
  Stmt nest = SampleNest();
  EXPECT_TRUE(StmtMutator().MutateStmt(nest).same_as(nest));
}

TEST(StmtFunctor, MutatorRebuildsOnlyThePathToAChange) {
  // Replace the store to buf1 only: the j loop must stay the very same node.
  struct RetargetBuf1 : StmtMutator {
    Stmt MutateStore(const Stmt& s) override { return s->buffer == 1 ? Store(3, s->index, s->value) : s; }
  };
  Stmt nest = SampleNest();
  Stmt out = RetargetBuf1().MutateStmt(nest);
  ASSERT_FALSE(out.same_as(nest));
  ASSERT_EQ(out->body->kind, StmtKind::kSeq);
  EXPECT_TRUE(out->body->seq[0].same_as(nest->body->seq[0]));
  EXPECT_EQ(out->body->seq[1]->then_case->buffer, 3);
}

TEST(StmtFunctor, RemovedStatementsTakeTheirEmptyParentsWithThem) {
  struct DropStores : StmtMutator {
    int buffer;
    explicit DropStores(int b) : buffer(b) {}
    Stmt MutateStore(const Stmt& s) override { return s->buffer == buffer ? Stmt() : s; }
  };
  // Dropping buf0's store removes the j loop; the sequence keeps the if alone.
  Stmt out = DropStores(0).MutateStmt(SampleNest());
  ASSERT_EQ(out->kind, StmtKind::kFor);
  EXPECT_EQ(out->body->kind, StmtKind::kIf);
  // Dropping both empties everything, the Allocate included.
  struct DropAll : StmtMutator {
    Stmt MutateStore(const Stmt&) override { return Stmt(); }
  };
  EXPECT_FALSE(DropAll().MutateStmt(Allocate(2, SampleNest())).defined());
  // An if whose then-branch goes but whose else-branch stays becomes if (!cond).
  Stmt if_else = IfThenElse(te::Lt(Var("i", 0), Idx(2)), Store(0, Idx(0), te::FloatImm(te::DType::kFloat32, 1)),
                            Store(1, Idx(0), te::FloatImm(te::DType::kFloat32, 1)));
  Stmt flipped = DropStores(0).MutateStmt(if_else);
  ASSERT_EQ(flipped->kind, StmtKind::kIf);
  EXPECT_EQ(flipped->cond->kind, te::ExprKind::kNot);
  EXPECT_EQ(flipped->then_case->buffer, 1);
}

}  // namespace
}  // namespace tunefarm::tir
