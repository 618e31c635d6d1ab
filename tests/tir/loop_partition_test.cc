// Loop partitioning (compiler/tir/loop_partition.h): padded borders split off, tests and
// clamps gone from the interior, and every split program equal to the plain evaluation.
#include <gtest/gtest.h>

#include <random>

#include "compiler/ops/pad.h"
#include "compiler/tir/loop_partition.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/random_schedule.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;
using schedule::State;
using te::ExprKind;

std::shared_ptr<const te::ComputeDag> PadDag(const std::vector<int64_t>& shape, std::vector<int64_t> pads,
                                             ops::PadMode mode = ops::PadMode::kConstant) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, shape);
  return b.Build({ops::OrDie(ops::Pad(b, x, ops::PadParams{mode, std::move(pads), 0.5}))});
}

bool Uses(const Expr& e, ExprKind kind) {
  if (!e.defined()) return false;
  if (e->kind == kind) return true;
  for (const Expr& operand : e->operands)
    if (Uses(operand, kind)) return true;
  return false;
}

struct StoreShape {
  int64_t loop_extent;  // of the loop right around the store
  bool tests, clamps;   // select, min/max in the stored value
};

void CollectStores(const Stmt& s, int64_t extent, std::vector<StoreShape>* out) {
  if (!s.defined()) return;
  switch (s->kind) {
    case StmtKind::kFor:
      te::IsConstInt(s->extent, &extent);
      CollectStores(s->body, extent, out);
      return;
    case StmtKind::kStore:
      out->push_back({extent, Uses(s->value, ExprKind::kSelect),
                      Uses(s->value, ExprKind::kMin) || Uses(s->value, ExprKind::kMax)});
      return;
    case StmtKind::kIf:
      CollectStores(s->then_case, extent, out);
      CollectStores(s->else_case, extent, out);
      return;
    case StmtKind::kSeq:
      for (const Stmt& st : s->seq) CollectStores(st, extent, out);
      return;
    case StmtKind::kAllocate:
      CollectStores(s->body, extent, out);
      return;
    case StmtKind::kBarrier:
      return;
  }
}

// Every store, with the extent of the loop right around it (0 outside any loop).
std::vector<StoreShape> Stores(const Stmt& body) {
  std::vector<StoreShape> out;
  CollectStores(body, 0, &out);
  return out;
}

// x [3, 10] padded by 2 before and 1 after its last axis: the row loop of 13 becomes 2 + 10 + 1
// iterations, and the 10 in the middle copy x with neither a test nor a clamp.
TEST(LoopPartition, APaddedRowLosesItsTestsAndClampsInTheInterior) {
  State s(PadDag({3, 10}, {0, 2, 0, 1}));
  auto f = Lower(s, "pad");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<StoreShape> stores = Stores(f->body);
  ASSERT_EQ(stores.size(), 3u) << PrimFuncToString(*f);
  int interior = 0;
  for (const StoreShape& st : stores) {
    if (st.loop_extent == 10 && !st.tests && !st.clamps) ++interior;
    if (st.loop_extent != 10) { EXPECT_FALSE(st.tests) << "a border iteration still tests"; }
  }
  EXPECT_EQ(interior, 1) << PrimFuncToString(*f);
  EXPECT_LT(testing::InterpretedError(s, 3), 1e-6);
}

// The innermost loop with tests is the one split; a loop with no test of its own variable, or
// one where no range dominates, is left alone.
TEST(LoopPartition, OnlyTheInnermostTestedLoopIsSplit) {
  State both(PadDag({5, 6}, {1, 1, 1, 1}));  // rows and columns padded
  auto f = Lower(both, "pad");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(Stores(f->body).size(), 3u) << PrimFuncToString(*f);  // columns split, rows not again
  EXPECT_LT(testing::InterpretedError(both, 4), 1e-6);

  State unpadded(PadDag({5, 6}, {0, 0, 0, 0}));
  auto g = Lower(unpadded, "copy");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Stores(g->body).size(), 1u) << PrimFuncToString(*g);

  State mostly_border(PadDag({2, 2}, {0, 3, 0, 3}));  // 2 of 8 columns inside
  auto h = Lower(mostly_border, "border");
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(Stores(h->body).size(), 1u) << PrimFuncToString(*h);
}

// A vectorized channel axis inside the padded column loop, as in an NCHW16c pack.
TEST(LoopPartition, AVectorLoopInsideTheSplitLoopKeepsItsLanes) {
  State s(PadDag({2, 7, 9, 16}, {0, 1, 1, 0, 0, 1, 2, 0}));
  ASSERT_TRUE(s.Annotate(s.dag().outputs()[0], 3, IterAnnotation::kVectorize).ok());
  auto f = Lower(s, "pack");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(Stores(f->body).size(), 3u) << PrimFuncToString(*f);
  EXPECT_LT(testing::InterpretedError(s, 5), 1e-6);
}

// Whatever the schedule (splits that make the tests non-linear, reorders, fusion, vectors,
// unrolling) and the padding mode, the split program computes the same values.
TEST(LoopPartition, RandomSchedulesOfPaddedTensorsMatchTheReference) {
  std::mt19937_64 rng(77);
  const ops::PadMode modes[] = {ops::PadMode::kConstant, ops::PadMode::kEdge, ops::PadMode::kReflect};
  int split = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<int64_t> shape = {1 + static_cast<int64_t>(rng() % 3), 2 + static_cast<int64_t>(rng() % 9),
                             2 + static_cast<int64_t>(rng() % 11)};
    std::vector<int64_t> pads(6);
    for (size_t i = 0; i < pads.size(); ++i) pads[i] = rng() % 3;
    State s(PadDag(shape, pads, modes[rng() % 3]));
    testing::ApplyRandomSteps(&s, &rng, 6);
    auto f = Lower(s, "pad");
    ASSERT_TRUE(f.ok()) << f.status() << "\n" << s.ToString();
    split += Stores(f->body).size() > 1;
    ASSERT_LT(testing::InterpretedError(s, trial), 1e-6) << s.ToJson() << "\n" << PrimFuncToString(*f);
  }
  EXPECT_GT(split, 20) << "too few programs were split to test anything";
}

}  // namespace
}  // namespace tunefarm::tir
