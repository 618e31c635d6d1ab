// compute_inline / compute_at / compute_root through lowering and the interpreter.
#include <gtest/gtest.h>

#include <random>

#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/common/random_schedule.h"
#include "tests/common/test_dags.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;
using schedule::State;

float ChainError(const State& s, int64_t rows, int64_t cols) {
  auto f = Lower(s, "chain");
  EXPECT_TRUE(f.ok()) << f.status() << "\n" << s.ToString();
  if (!f.ok()) return 1e30f;
  auto x = testing::RandomFloats(rows * cols, 5), y = testing::RandomFloats(rows * cols, 6);
  std::vector<float> out(rows * cols, NAN);
  absl::Status st = Interpret(*f, {x.data(), y.data(), out.data()});
  EXPECT_TRUE(st.ok()) << st << "\n" << PrimFuncToString(*f);
  return testing::MaxAbsDiff(out, testing::ElementwiseChainReference(x, y));
}

struct ConvCase {
  int64_t batch, n, r, pad;
};

float ConvError(const State& s, ConvCase c, std::string* code = nullptr) {
  auto f = Lower(s, "conv");
  EXPECT_TRUE(f.ok()) << f.status() << "\n" << s.ToString();
  if (!f.ok()) return 1e30f;
  if (code) *code = PrimFuncToString(*f);
  auto x = testing::RandomFloats(c.batch * c.n, 7), w = testing::RandomFloats(c.r, 8);
  int64_t out_n = c.n + 2 * c.pad - c.r + 1;
  std::vector<float> out(c.batch * out_n, NAN);
  absl::Status st = Interpret(*f, {x.data(), w.data(), out.data()});
  EXPECT_TRUE(st.ok()) << st << "\n" << PrimFuncToString(*f);
  return testing::MaxAbsDiff(out, testing::PaddedConv1dReference(x, w, c.batch, c.n, c.r, c.pad));
}

TEST(ComputeLocation, InlinedChainIsOneNestWithoutScratch) {
  State s(testing::ElementwiseChainDag(7, 9));
  ASSERT_TRUE(s.ComputeInline(2).ok());
  ASSERT_TRUE(s.ComputeInline(3).ok());
  EXPECT_LT(ChainError(s, 7, 9), 1e-6f);
  auto f = Lower(s, "chain");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->workspace_bytes, 0);
  EXPECT_EQ(f->buffers.size(), 3u);
  EXPECT_EQ(f->body->kind, StmtKind::kFor);
}

TEST(ComputeLocation, InvalidPlacementsAreRejected) {
  State s(testing::GemmBiasDag(8, 8, 8));
  auto expect = [](absl::Status st, std::string_view what) {
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_NE(std::string(st.message()).find(what), std::string::npos) << st;
  };
  expect(s.ComputeInline(4), "CI stage 4: an output stage cannot be inlined");
  expect(s.ComputeInline(3), "a reduction cannot be inlined");
  expect(s.ComputeAt(4, 3, 0), "an output stage cannot be computed inside another stage");
  expect(s.ComputeAt(3, 3, 0), "a stage cannot be computed inside itself");
  expect(s.ComputeAt(0, 3, 0), "a placeholder has no loops");
  expect(s.ComputeAt(3, 4, 5), "CA stage 4 iter 5: no such iterator");
  State t(testing::ElementwiseChainDag(4, 4));
  ASSERT_TRUE(t.ComputeInline(2).ok());
  expect(t.ComputeRoot(2), "CR stage 2: an inlined stage has no loops");
}

TEST(ComputeLocation, GemmComputedPerRowOfTheBiasStage) {
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{13, 11, 9}, {16, 16, 16}}) {
    State s(testing::GemmBiasDag(m, n, k));
    ASSERT_TRUE(s.Split(4, 1, {4}).ok());  // out: i j.0 j.1
    ASSERT_TRUE(s.ComputeAt(3, 4, 1).ok());  // C at out's j.0: a 1x4 tile of C per iteration
    ASSERT_TRUE(s.Annotate(4, 0, IterAnnotation::kParallel).ok());
    auto f = Lower(s, "gemm");
    ASSERT_TRUE(f.ok()) << f.status();
    auto a = testing::RandomFloats(m * k, 1), w = testing::RandomFloats(k * n, 2), bias = testing::RandomFloats(n, 3);
    std::vector<float> out(m * n, NAN);
    ASSERT_TRUE(Interpret(*f, {a.data(), w.data(), bias.data(), out.data()}).ok()) << PrimFuncToString(*f);
    EXPECT_LT(testing::MaxAbsDiff(out, testing::GemmBiasReference(a, w, bias, m, n, k)), 1e-4f) << PrimFuncToString(*f);
  }
}

TEST(ComputeLocation, PaddingComputedWithItsHaloPerTile) {
  for (ConvCase c : {ConvCase{2, 17, 3, 1}, ConvCase{1, 16, 5, 2}, ConvCase{3, 9, 4, 0}}) {
    State s(testing::PaddedConv1dDag(c.batch, c.n, c.r, c.pad));
    ASSERT_TRUE(s.Split(3, 1, {4}).ok());    // conv: b i.0 i.1 k
    ASSERT_TRUE(s.ComputeAt(2, 3, 1).ok());  // pad at conv's i.0: 4 + r - 1 elements
    EXPECT_FALSE(s.ComputeInline(3).ok());  // a reduction stays a stage
    std::string code;
    EXPECT_LT(ConvError(s, c, &code), 1e-5f);
    // The pad loop covers just the tile plus its halo, not the whole row.
    EXPECT_NE(code.find(", 0, " + std::to_string(4 + c.r - 1) + ")"), std::string::npos) << code;
  }
}

TEST(ComputeLocation, NestedComputeAtAndInline) {
  ConvCase c{2, 19, 3, 1};
  State s(testing::PaddedConv1dDag(c.batch, c.n, c.r, c.pad));
  ASSERT_TRUE(s.Split(4, 1, {8}).ok());    // y: b i.0 i.1
  ASSERT_TRUE(s.Split(3, 1, {4}).ok());    // conv: b i.0 i.1 k
  ASSERT_TRUE(s.ComputeAt(3, 4, 1).ok());  // conv per 8-wide tile of y
  ASSERT_TRUE(s.ComputeAt(2, 3, 1).ok());  // pad per 4-wide tile of conv
  ASSERT_TRUE(s.Annotate(4, 0, IterAnnotation::kParallel).ok());
  EXPECT_LT(ConvError(s, c), 1e-5f);
  State t(testing::PaddedConv1dDag(c.batch, c.n, c.r, c.pad));
  ASSERT_TRUE(t.ComputeInline(2).ok());
  ASSERT_TRUE(t.ComputeAt(3, 4, 0).ok());
  EXPECT_LT(ConvError(t, c), 1e-5f);
}

// p = x*y; s = p + x; r = relu(s). s at r's j.0, then p at r's j.0 too (p's only reader, s,
// runs inside that loop), or at r's i: region inference goes through s.
TEST(ComputeLocation, ComputeAtAStageThatReadsThroughAnother) {
  for (int p_iter : {0, 1}) {
    for (const char* scope : {"", "local"}) {
      State s(testing::ElementwiseChainDag(7, 9));
      int p = 2, sum = 3, r = 4;
      if (*scope) {  // p copied into a local cache that s reads: A B p p.local s r
        ASSERT_TRUE(s.CacheRead(2, scope, {3}).ok());
        p = 3, sum = 4, r = 5;
      }
      ASSERT_TRUE(s.Split(r, 1, {4}).ok());  // r: i j.0 j.1
      ASSERT_TRUE(s.ComputeAt(sum, r, 1).ok());
      ASSERT_TRUE(s.ComputeAt(p, r, p_iter).ok()) << s.ToString();
      if (*scope) {
        ASSERT_TRUE(s.ComputeAt(2, r, 0).ok()) << s.ToString();  // x*y too, through p.local and s
      }
      EXPECT_LT(ChainError(s, 7, 9), 1e-6f) << p_iter << " " << scope << "\n" << s.ToString();
    }
  }
}

TEST(ComputeLocation, EveryReaderMustRunInsideTheLoop) {
  State s(testing::ElementwiseChainDag(6, 8));
  ASSERT_TRUE(s.Split(4, 1, {4}).ok());  // r: i j.0 j.1
  auto expect = [](absl::Status st, std::string_view what) {
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_NE(std::string(st.message()).find(what), std::string::npos) << st;
  };
  // p's reader s is at the root: p cannot go inside r.
  expect(s.ComputeAt(2, 4, 1), "its reader stage 3 does not run inside stage 4's loop");
  // s at r's j.1: p at r's j.0 is fine (outside), but then moving s out to... the root breaks p.
  ASSERT_TRUE(s.ComputeAt(3, 4, 2).ok());
  ASSERT_TRUE(s.ComputeAt(2, 4, 1).ok());
  expect(s.ComputeRoot(3), "which would no longer hold");
  // A reorder that lifts s's loop above p's takes s out of p's loop.
  expect(s.Reorder(4, {0, 2, 1}), "is computed outside stage 4's loop");
  // p below its reader: s at j.0 reads p before p's loop j.1 runs.
  State t(testing::ElementwiseChainDag(6, 8));
  ASSERT_TRUE(t.Split(4, 1, {4}).ok());
  ASSERT_TRUE(t.ComputeAt(3, 4, 1).ok());
  expect(t.ComputeAt(2, 4, 2), "its reader stage 3 is computed outside stage 4's loop i1.1");
  // Not a reader at all: p does not read s.
  expect(t.ComputeAt(3, 2, 0), "stage 2 does not read this stage, directly or through other stages");
  EXPECT_LT(ChainError(s, 6, 8), 1e-6f);  // the rejected steps left s as it was
}

TEST(ComputeLocation, SplitAndFuseKeepStagesComputedAtTheirLoops) {
  State s(testing::GemmBiasDag(12, 10, 7));
  ASSERT_TRUE(s.ComputeAt(3, 4, 0).ok());  // C per row of out
  ASSERT_TRUE(s.Split(4, 0, {3}).ok());    // out: i.0 i.1 j; C moves to i.1
  EXPECT_EQ(s.stage(3).attach_node, s.stage(4).iters[1].node);
  ASSERT_TRUE(s.Fuse(4, {0, 1}).ok());     // out: i.0@i.1 j; C moves to the fused loop
  EXPECT_EQ(s.stage(3).attach_node, s.stage(4).iters[0].node);
  ASSERT_TRUE(s.Annotate(4, 0, IterAnnotation::kParallel).ok());
  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  auto a = testing::RandomFloats(12 * 7, 1), w = testing::RandomFloats(7 * 10, 2), bias = testing::RandomFloats(10, 3);
  std::vector<float> out(120, NAN);
  ASSERT_TRUE(Interpret(*f, {a.data(), w.data(), bias.data(), out.data()}).ok());
  EXPECT_LT(testing::MaxAbsDiff(out, testing::GemmBiasReference(a, w, bias, 12, 10, 7)), 1e-4f);
  auto replayed = State::FromJson(s.original_dag(), s.ToJson());
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(replayed->ToString(), s.ToString());
}

// Random step sequences including compute_at / inline / root over DAGs with producers.
TEST(ComputeLocation, RandomSchedulesMatchReference) {
  std::mt19937_64 rng(99);
  int applied = 0;
  for (int trial = 0; trial < 150; ++trial) {
    ConvCase c{1 + static_cast<int64_t>(rng() % 3), 3 + static_cast<int64_t>(rng() % 20),
               1 + static_cast<int64_t>(rng() % 4), static_cast<int64_t>(rng() % 3)};
    State s(testing::PaddedConv1dDag(c.batch, c.n, c.r, c.pad));
    applied += testing::ApplyRandomSteps(&s, &rng, 12).applied;
    ASSERT_LT(ConvError(s, c), 1e-5f) << s.ToJson();
    int64_t rows = 1 + rng() % 9, cols = 1 + rng() % 13;
    State t(testing::ElementwiseChainDag(rows, cols));
    applied += testing::ApplyRandomSteps(&t, &rng, 12).applied;
    ASSERT_LT(ChainError(t, rows, cols), 1e-6f) << t.ToJson();
  }
  EXPECT_GT(applied, 600);
}

}  // namespace
}  // namespace tunefarm::tir
