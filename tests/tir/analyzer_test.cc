#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "compiler/te/expr_text.h"
#include "compiler/tir/analyzer.h"

namespace tunefarm::tir {
namespace {

using te::MakeVar;

class AnalyzerTest : public ::testing::Test {
 protected:
  Expr i0 = MakeVar("i0", 0), i1 = MakeVar("i1", 1), f = MakeVar("f", 2);
  Analyzer an;
  void SetUp() override {
    an.BindLoop(0, 8);   // i0 in [0, 8)
    an.BindLoop(1, 8);   // i1 in [0, 8)
    an.BindLoop(2, 96);  // f in [0, 96)
  }
  std::string S(const Expr& e) { return StmtToString(Store(0, an.Simplify(e), te::IntImm(te::kIndexType, 0))); }
};

TEST_F(AnalyzerTest, SplitArithmeticCollapses) {
  Expr v = i0 * 8 + i1;
  EXPECT_TRUE(StructurallyEqual(an.Simplify(v / 8), i0));
  EXPECT_TRUE(StructurallyEqual(an.Simplify(v % 8), i1));
  EXPECT_TRUE(an.CanProve(te::Lt(v, 64)));
  EXPECT_FALSE(an.CanProve(te::Lt(v, 63)));
  int64_t c;
  ASSERT_TRUE(te::IsConstInt(an.Simplify(te::Lt(v, 64)), &c));
  EXPECT_EQ(c, 1);
  EXPECT_TRUE(StructurallyEqual(an.Simplify((i0 + 3) * 2 - i0 * 2), te::IntImm(te::kIndexType, 6)));
}

TEST_F(AnalyzerTest, NestedSplitOfAFusedLoop) {
  // f = f0*8 + f1 split of a fused loop of extent 96 = 12 * 8.
  Expr f0 = MakeVar("f0", 3), f1 = MakeVar("f1", 4);
  an.BindLoop(3, 12);
  an.BindLoop(4, 8);
  Expr fused = f0 * 8 + f1;
  EXPECT_TRUE(StructurallyEqual(an.Simplify(fused / 16), an.Simplify(f0 / 2)));
  EXPECT_TRUE(StructurallyEqual(an.Simplify((fused / 8) % 12), f0));
  EXPECT_EQ(S(fused % 16), S(f0 % 2 * 8 + f1));
}

TEST_F(AnalyzerTest, SimplificationPreservesValueOnRandomExpressions) {
  // Every simplified expression must evaluate like the original at every point.
  std::mt19937_64 rng(7);
  auto leaf = [&]() -> Expr {
    switch (rng() % 3) {
      case 0: return i0;
      case 1: return i1;
      default: return te::IntImm(te::kIndexType, static_cast<int64_t>(rng() % 17) - 4);
    }
  };
  std::function<Expr(int)> gen = [&](int depth) -> Expr {
    if (depth == 0) return leaf();
    Expr a = gen(depth - 1), b = gen(depth - 1);
    switch (rng() % 6) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * te::IntImm(te::kIndexType, 1 + rng() % 9);
      case 3: return a / te::IntImm(te::kIndexType, 1 + rng() % 9);
      case 4: return a % te::IntImm(te::kIndexType, 1 + rng() % 9);
      default: return te::Min(a, b);
    }
  };
  auto eval = [](const Expr& e, int64_t x0, int64_t x1) {
    Expr v = Substitute(e, {{0, te::IntImm(te::kIndexType, x0)}, {1, te::IntImm(te::kIndexType, x1)}});
    int64_t out = 0;
    Analyzer fold;
    EXPECT_TRUE(te::IsConstInt(fold.Simplify(v), &out)) << te::ExprToText(v);
    return out;
  };
  for (int trial = 0; trial < 300; ++trial) {
    Expr e = gen(4);
    Expr s = an.Simplify(e);
    for (int64_t x0 = 0; x0 < 8; x0 += 3)
      for (int64_t x1 = 0; x1 < 8; x1 += 2) ASSERT_EQ(eval(e, x0, x1), eval(s, x0, x1)) << te::ExprToText(e);
  }
}

// The terms of a simplified sum, in its order: FromLinear writes t1 (+|-) c2*t2 ... (+|-) const.
std::vector<Expr> TermsOfSum(Expr e) {
  std::vector<Expr> terms;
  auto strip = [](const Expr& t) {
    int64_t c;
    return t->kind == te::ExprKind::kMul && te::IsConstInt(t->operands[1], &c) ? t->operands[0] : t;
  };
  while (e->kind == te::ExprKind::kAdd || e->kind == te::ExprKind::kSub) {
    if (!te::IsConstInt(e->operands[1])) terms.push_back(strip(e->operands[1]));
    e = e->operands[0];
  }
  if (!te::IsConstInt(e)) terms.push_back(strip(e));
  std::reverse(terms.begin(), terms.end());
  return terms;
}

TEST(AnalyzerTermOrder, TermsOfASumAreOrderedByTheirCanonicalText) {
  // Variables are keyed by id and name without printing them; the order must still be the
  // text's (ids compare by their digits: "100" < "12" < "2"), with other terms before them.
  std::mt19937_64 rng(11);
  const int64_t ids[] = {2, 12, 100, 21, 7, 1000};
  const char* names[] = {"i", "i0.1", "j", "", "ax"};
  Analyzer an;
  for (int trial = 0; trial < 200; ++trial) {
    Expr sum = te::IntImm(te::kIndexType, static_cast<int64_t>(rng() % 5));
    for (int t = 0; t < 6; ++t) {
      Expr v = MakeVar(names[rng() % 5], ids[rng() % 6]);
      Expr term = rng() % 3 == 0 ? v / te::IntImm(te::kIndexType, 2 + rng() % 3) : v;
      sum = sum + term * te::IntImm(te::kIndexType, 1 + rng() % 4);
    }
    std::vector<Expr> terms = TermsOfSum(an.Simplify(sum));
    for (size_t i = 1; i < terms.size(); ++i)
      EXPECT_LT(te::ExprToText(terms[i - 1]), te::ExprToText(terms[i])) << te::ExprToText(an.Simplify(sum));
  }
}

TEST(AnalyzerTermOrder, OneVariableInTwoNodesIsOneTerm) {
  Analyzer an;
  Expr a = MakeVar("i", 5), b = MakeVar("i", 5), other = MakeVar("i", 6);
  EXPECT_EQ(te::ExprToText(an.Simplify(a + b - a * 2)), te::ExprToText(te::IntImm(te::kIndexType, 0)));
  EXPECT_EQ(TermsOfSum(an.Simplify(a + other)).size(), 2u);
}

TEST_F(AnalyzerTest, AVariableBoundToOneValueIsThatValue) {
  Expr u = MakeVar("u", 9);
  an.BindLoop(9, 1);
  EXPECT_TRUE(StructurallyEqual(an.Simplify(i0 * 8 + u * 4 + 1), an.Simplify(i0 * 8 + 1)));
  an.Unbind(9);
  EXPECT_EQ(TermsOfSum(an.Simplify(u * 4 + 1)).size(), 1u);
}

TEST(SimplifyStmt, AUnitLoopsVariableIsZeroInNestedExtentsGuardsAndIndices) {
  Expr u = MakeVar("u", 0), i = MakeVar("i", 1);
  const Expr one = te::FloatImm(te::DType::kFloat32, 1);
  Stmt s = For(u, 1, ForKind::kSerial,
               For(i, u + 4, ForKind::kSerial, IfThenElse(te::Lt(i + u, 4), Store(0, i * 2 + u, one))));
  Stmt out = SimplifyStmt(s);
  ASSERT_EQ(out->kind, StmtKind::kFor);
  EXPECT_TRUE(StructurallyEqual(out->extent, te::IntImm(te::kIndexType, 4)));
  ASSERT_EQ(out->body->kind, StmtKind::kStore);  // i + 0 < 4 always holds
  EXPECT_EQ(StmtToString(out->body), StmtToString(Store(0, i * 2, one)));
}

TEST(FreshenLoopVars, EveryLoopGetsANewVariableAndEveryUseFollowsIt) {
  Expr i = MakeVar("i", 0), j = MakeVar("j", 1), k = MakeVar("k", 2);
  const Expr one = te::FloatImm(te::DType::kFloat32, 1);
  // j's extent and the stores use the outer variables; k's loop comes after j's, beside it.
  Stmt s = For(i, 4, ForKind::kSerial,
               Seq({For(j, i + 1, ForKind::kSerial, Store(0, i * 8 + j, one)),
                    For(k, 2, ForKind::kVectorized, Store(0, i * 8 + k + j * 0, one))}));
  int64_t next_id = 100;
  Stmt out = FreshenLoopVars(s, &next_id);
  EXPECT_EQ(next_id, 103);
  Expr a = MakeVar("i", 100), b = MakeVar("j", 101), c = MakeVar("k", 102);
  Stmt want = For(a, 4, ForKind::kSerial,
                  Seq({For(b, a + 1, ForKind::kSerial, Store(0, a * 8 + b, one)),
                       For(c, 2, ForKind::kVectorized, Store(0, a * 8 + c + j * 0, one))}));
  // j outside its loop is not a use of that loop's variable: it stays.
  EXPECT_EQ(StmtToString(out), StmtToString(want));
}

TEST(SimplifyStmt, RemovesProvenGuardsAndUnitLoops) {
  Expr i = MakeVar("i", 0), j = MakeVar("j", 1);
  Stmt s = For(i, 4, ForKind::kSerial,
               For(j, 1, ForKind::kSerial, IfThenElse(te::Lt(i * 4 + j, 16), Store(0, i + j, te::FloatImm(te::DType::kFloat32, 1)))));
  Stmt out = SimplifyStmt(s);
  ASSERT_EQ(out->kind, StmtKind::kFor);
  EXPECT_EQ(out->body->kind, StmtKind::kStore);  // j loop and guard gone
}

}  // namespace
}  // namespace tunefarm::tir
