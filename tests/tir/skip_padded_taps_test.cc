// Skipping padded taps (compiler/tir/skip_padded_taps.h): a conv whose padding is inlined adds
// nothing for the taps on its border, its row test sits once per row of taps, a test that varies
// across vector lanes stays a select, and every schedule still computes the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/ops/conv2d.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/stmt_functor.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/random_schedule.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;
using schedule::State;
using te::ExprKind;

// conv2d NCHW, 3x3, stride 1: 1 x c x hw x hw input, k filters; stages x w pad conv2d.
std::shared_ptr<const te::ComputeDag> PaddedConvDag(int64_t c, int64_t hw, int64_t k, int64_t pad) {
  te::DagBuilder b;
  ops::Conv2dParams p;
  p.padding = {pad, pad, pad, pad};
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, c, hw, hw});
  auto w = b.Placeholder("w", te::DType::kFloat32, {k, c, 3, 3}, true);
  return b.Build({ops::Conv2dNchw(b, x, w, p)});
}

constexpr int kPad = 2, kConv = 3;  // stage ids in PaddedConvDag

// A padded read: select(test, x, 0). (A guarded update into memory is a select too, of the
// sum or the old value, and is not counted.)
bool ReadsPadding(const Expr& e) {
  bool found = false;
  te::Visit(e, [&](const Expr& n) {
    found = found || (n->kind == ExprKind::kSelect && n->operands[2]->kind == ExprKind::kFloatImm &&
                      n->operands[2]->float_value == 0);
  });
  return found;
}

struct Shape {
  int stores_reading_padding = 0;
  int guards_around_loops = 0;  // an if whose body is a loop: a test moved out of it
};

Shape ShapeOf(const Stmt& body) {
  Shape shape;
  PreOrderVisit(body, [&](const Stmt& s) {
    if (s->kind == StmtKind::kStore && ReadsPadding(s->value)) ++shape.stores_reading_padding;
    if (s->kind == StmtKind::kIf && s->then_case->kind == StmtKind::kFor) ++shape.guards_around_loops;
  });
  return shape;
}

// The conv's output at [0, 0, 0, 0] when every filter's top-left weight is inf: that tap lands
// on the padding at the corner, so the output is finite exactly when the tap is skipped (0 * inf
// is NaN).
float CornerWithInfiniteCornerWeights(const State& s, int64_t c, int64_t hw, int64_t k) {
  auto f = Lower(s, "conv");
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return NAN;
  std::vector<float> x = testing::RandomFloats(c * hw * hw, 1), w = testing::RandomFloats(k * c * 9, 2);
  for (int64_t i = 0; i < k * c; ++i) w[i * 9] = INFINITY;
  std::vector<float> out(k * hw * hw, NAN);
  EXPECT_TRUE(Interpret(*f, {x.data(), w.data(), out.data()}).ok());
  return out[0];
}

TEST(SkipPaddedTaps, AnInlinedPaddingAddsNothingForTheBorderTaps) {
  State s(PaddedConvDag(3, 6, 4, 1));
  ASSERT_TRUE(s.ComputeInline(kPad).ok());
  auto f = Lower(s, "conv");
  ASSERT_TRUE(f.ok()) << f.status();
  const Shape shape = ShapeOf(f->body);
  EXPECT_EQ(shape.stores_reading_padding, 0) << PrimFuncToString(*f);
  // The row test leaves the kernel-column loop: n k oh ow rc ry [if row] rx [if column] update.
  EXPECT_GE(shape.guards_around_loops, 1) << PrimFuncToString(*f);
  EXPECT_TRUE(std::isfinite(CornerWithInfiniteCornerWeights(s, 3, 6, 4))) << PrimFuncToString(*f);
  EXPECT_LT(testing::InterpretedError(s, 7), 1e-4);

  // The same conv with its padding computed first reads real zeros and gets NaN there: the check
  // above can fail.
  State at_root(PaddedConvDag(3, 6, 4, 1));
  EXPECT_TRUE(std::isnan(CornerWithInfiniteCornerWeights(at_root, 3, 6, 4)));
}

// The kernel-row test depends only on the output row and the kernel row: with the loops ordered
// oh ry rc ow rx, it moves out of rc, ow and rx, to run once per row of taps.
TEST(SkipPaddedTaps, TheRowTestMovesOutOfEveryLoopItDoesNotUse) {
  State s(PaddedConvDag(2, 5, 2, 1));
  ASSERT_TRUE(s.ComputeInline(kPad).ok());
  // n k oh ow rc ry rx -> n k oh ry rc ow rx
  ASSERT_TRUE(s.Reorder(kConv, {0, 1, 2, 5, 4, 3, 6}).ok());
  auto f = Lower(s, "conv");
  ASSERT_TRUE(f.ok()) << f.status();
  // The if right inside the ry loop holds the rc loop.
  int row_guards = 0;
  PreOrderVisit(f->body, [&](const Stmt& st) {
    if (st->kind == StmtKind::kFor && st->body->kind == StmtKind::kIf && st->body->then_case->kind == StmtKind::kFor &&
        st->body->then_case->body->kind == StmtKind::kFor)
      ++row_guards;
  });
  EXPECT_EQ(row_guards, 1) << PrimFuncToString(*f);
  EXPECT_EQ(ShapeOf(f->body).stores_reading_padding, 0) << PrimFuncToString(*f);
  EXPECT_LT(testing::InterpretedError(s, 8), 1e-4);
}

struct InnermostGuards {
  int branches_into_memory = 0, branches_into_locals = 0;  // an if with only unrolled or vector loops inside
  int selected_updates = 0;  // b[i] = select(test, ..., b[i])
};

InnermostGuards InnermostGuardsOf(const PrimFunc& f) {
  InnermostGuards g;
  PreOrderVisit(f.body, [&](const Stmt& s) {
    if (s->kind == StmtKind::kStore && s->value->kind == ExprKind::kSelect &&
        s->value->operands[2]->kind == ExprKind::kLoad && s->value->operands[2]->int_value == s->buffer)
      ++g.selected_updates;
    if (s->kind != StmtKind::kIf) return;
    bool serial_loop = false;
    int buffer = -1;
    PreOrderVisit(s->then_case, [&](const Stmt& inner) {
      serial_loop = serial_loop || (inner->kind == StmtKind::kFor && inner->for_kind != ForKind::kUnrolled &&
                                    inner->for_kind != ForKind::kVectorized);
      if (inner->kind == StmtKind::kStore) buffer = inner->buffer;
    });
    if (serial_loop || buffer < 0) return;
    ++(f.buffers[buffer].scope == BufferScope::kLocal ? g.branches_into_locals : g.branches_into_memory);
  });
  return g;
}

// A branch around each multiply-add of an accumulator in memory would keep LLVM from holding it
// in registers across the reduction: there the column test becomes a select of the update. A
// local tile is promoted to registers either way, and keeps the branch.
TEST(SkipPaddedTaps, AnInnermostGuardIntoMemoryBecomesASelectOfTheUpdateAndOneIntoALocalTileStaysABranch) {
  State in_memory(PaddedConvDag(3, 6, 4, 1));  // the conv accumulates into its output
  ASSERT_TRUE(in_memory.ComputeInline(kPad).ok());
  auto f = Lower(in_memory, "conv");
  ASSERT_TRUE(f.ok()) << f.status();
  InnermostGuards g = InnermostGuardsOf(*f);
  EXPECT_EQ(g.branches_into_memory, 0) << PrimFuncToString(*f);
  EXPECT_GE(g.selected_updates, 1) << PrimFuncToString(*f);
  EXPECT_EQ(ShapeOf(f->body).stores_reading_padding, 0) << PrimFuncToString(*f);
  EXPECT_TRUE(std::isfinite(CornerWithInfiniteCornerWeights(in_memory, 3, 6, 4))) << PrimFuncToString(*f);
  EXPECT_LT(testing::InterpretedError(in_memory, 10), 1e-4);

  State local(PaddedConvDag(3, 6, 4, 1));
  ASSERT_TRUE(local.ComputeInline(kPad).ok());
  ASSERT_TRUE(local.CacheWrite(kConv, "local").ok());  // x w pad conv2d.local conv2d
  ASSERT_TRUE(local.ComputeAt(kConv, kConv + 1, 2).ok());  // a tile per output row
  auto h = Lower(local, "conv");
  ASSERT_TRUE(h.ok()) << h.status();
  g = InnermostGuardsOf(*h);
  EXPECT_GE(g.branches_into_locals, 1) << PrimFuncToString(*h);
  EXPECT_EQ(g.selected_updates, 0) << PrimFuncToString(*h);
  EXPECT_LT(testing::InterpretedError(local, 11), 1e-4);
}

// A sum in GPU shared memory is updated in loops that get barriers, which must not sit under a
// test of the thread index: it keeps its padded read.
TEST(SkipPaddedTaps, ASumInSharedMemoryKeepsItsPaddedRead) {
  State s(PaddedConvDag(3, 6, 4, 1));
  ASSERT_TRUE(s.ComputeInline(kPad).ok());
  ASSERT_TRUE(s.CacheWrite(kConv, "shared").ok());  // x w pad conv2d.shared conv2d
  ASSERT_TRUE(s.ComputeAt(kConv, kConv + 1, 2).ok());
  auto f = Lower(s, "conv");
  ASSERT_TRUE(f.ok()) << f.status();
  int shared_sums_reading_padding = 0;
  PreOrderVisit(f->body, [&](const Stmt& st) {
    shared_sums_reading_padding += st->kind == StmtKind::kStore &&
                                   f->buffers[st->buffer].scope == BufferScope::kShared && ReadsPadding(st->value);
  });
  EXPECT_GE(shared_sums_reading_padding, 1) << PrimFuncToString(*f);
  EXPECT_LT(testing::InterpretedError(s, 12), 1e-4);
}

// Vectorizing the output columns makes the column test differ across lanes: that read stays a
// select (a blend), and the program still computes the reference.
TEST(SkipPaddedTaps, ATestThatVariesAcrossVectorLanesStaysASelect) {
  State s(PaddedConvDag(2, 8, 3, 1));
  ASSERT_TRUE(s.ComputeInline(kPad).ok());
  ASSERT_TRUE(s.Reorder(kConv, {0, 1, 2, 4, 5, 6, 3}).ok());  // n k oh rc ry rx ow
  ASSERT_TRUE(s.Annotate(kConv, 6, IterAnnotation::kVectorize).ok());
  auto f = Lower(s, "conv");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_GE(ShapeOf(f->body).stores_reading_padding, 1) << PrimFuncToString(*f);
  EXPECT_LT(testing::InterpretedError(s, 9), 1e-4);
}

// Whatever the schedule (splits, reorders, fusion, unrolling, vectors, local caches, compute
// locations) and the padding, every program computes the reference, and many skip taps.
TEST(SkipPaddedTaps, RandomSchedulesOfAPaddedConvMatchTheReference) {
  std::mt19937_64 rng(91);
  int skipping = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t pad = 1 + static_cast<int64_t>(rng() % 2), hw = 3 + static_cast<int64_t>(rng() % 5);
    State s(PaddedConvDag(1 + static_cast<int64_t>(rng() % 3), hw, 1 + static_cast<int64_t>(rng() % 4), pad));
    const bool inlined = rng() % 4 != 0;
    if (inlined) { ASSERT_TRUE(s.ComputeInline(kPad).ok()); }
    testing::ApplyRandomSteps(&s, &rng, 6);
    auto f = Lower(s, "conv");
    ASSERT_TRUE(f.ok()) << f.status() << "\n" << s.ToString();
    skipping += inlined && ShapeOf(f->body).stores_reading_padding == 0;
    ASSERT_LT(testing::InterpretedError(s, trial), 1e-4) << s.ToJson() << "\n" << PrimFuncToString(*f);
  }
  EXPECT_GT(skipping, 50) << "too few programs skipped taps to test anything";
}

}  // namespace
}  // namespace tunefarm::tir
