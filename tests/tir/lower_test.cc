#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/common/random_schedule.h"
#include "tests/common/test_dags.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;
using schedule::State;
constexpr int kGemm = 3;

struct GemmCase {
  int64_t m, n, k;
};

// Runs a lowered GEMM+bias through the interpreter and returns the max error vs the reference.
float GemmError(const State& s, GemmCase c) {
  auto f = Lower(s, "gemm");
  EXPECT_TRUE(f.ok()) << f.status() << "\n" << s.ToString();
  if (!f.ok()) return 1e30f;
  auto a = testing::RandomFloats(c.m * c.k, 1), w = testing::RandomFloats(c.k * c.n, 2),
       bias = testing::RandomFloats(c.n, 3);
  std::vector<float> out(c.m * c.n, NAN);
  absl::Status st = Interpret(*f, {a.data(), w.data(), bias.data(), out.data()});
  EXPECT_TRUE(st.ok()) << st << "\n" << PrimFuncToString(*f);
  return testing::MaxAbsDiff(out, testing::GemmBiasReference(a, w, bias, c.m, c.n, c.k));
}

const GemmCase kCases[] = {{16, 16, 16}, {37, 29, 23}, {1, 13, 7}, {64, 48, 32}};

TEST(Lower, NaiveGemmMatchesReference) {
  for (GemmCase c : kCases) EXPECT_LT(GemmError(State(testing::GemmBiasDag(c.m, c.n, c.k)), c), 1e-4f);
}

TEST(Lower, TiledGemmWithTailsMatchesReference) {
  for (GemmCase c : kCases) {
    State s(testing::GemmBiasDag(c.m, c.n, c.k));
    ASSERT_TRUE(s.Split(kGemm, 0, {4, 2}).ok());  // i -> i.0 i.1 i.2
    ASSERT_TRUE(s.Split(kGemm, 3, {8}).ok());     // j -> j.0 j.1
    ASSERT_TRUE(s.Split(kGemm, 5, {3}).ok());     // k -> k.0 k.1
    // i.0 j.0 k.0 i.1 k.1 i.2 j.1
    ASSERT_TRUE(s.Reorder(kGemm, {0, 3, 5, 1, 6, 2, 4}).ok());
    ASSERT_TRUE(s.Fuse(kGemm, {0, 1}).ok());
    ASSERT_TRUE(s.Annotate(kGemm, 0, IterAnnotation::kParallel).ok());
    ASSERT_TRUE(s.Annotate(kGemm, 5, IterAnnotation::kVectorize).ok());
    ASSERT_TRUE(s.Annotate(kGemm, 3, IterAnnotation::kUnroll).ok());
    ASSERT_TRUE(s.Split(4, 1, {8}).ok());
    ASSERT_TRUE(s.Annotate(4, 2, IterAnnotation::kVectorize).ok());
    ASSERT_TRUE(s.Annotate(4, 0, IterAnnotation::kParallel).ok());
    EXPECT_LT(GemmError(s, c), 1e-4f) << c.m << "x" << c.n << "x" << c.k;
  }
}

TEST(Lower, ReduceLoopOutsideSpaceLoopsGetsASeparateInit) {
  GemmCase c{13, 11, 9};
  State s(testing::GemmBiasDag(c.m, c.n, c.k));
  ASSERT_TRUE(s.Split(kGemm, 1, {4}).ok());               // i j.0 j.1 k
  ASSERT_TRUE(s.Reorder(kGemm, {0, 1, 3, 2}).ok());       // i j.0 k j.1
  ASSERT_TRUE(s.PragmaAutoUnroll(kGemm, 0, 64).ok());
  EXPECT_LT(GemmError(s, c), 1e-4f);
  State t(testing::GemmBiasDag(c.m, c.n, c.k));
  ASSERT_TRUE(t.Reorder(kGemm, {2, 0, 1}).ok());  // k outermost
  EXPECT_LT(GemmError(t, c), 1e-4f);
  auto f = Lower(t, "gemm");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->body->kind, StmtKind::kSeq);
}

TEST(Lower, DivisibleSplitsNeedNoGuards) {
  State s(testing::GemmBiasDag(64, 64, 64));
  ASSERT_TRUE(s.Split(kGemm, 0, {8}).ok());
  ASSERT_TRUE(s.Split(kGemm, 2, {16}).ok());
  ASSERT_TRUE(s.Fuse(kGemm, {0, 1}).ok());
  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  std::string text = PrimFuncToString(*f);
  EXPECT_EQ(text.find("if ("), std::string::npos) << text;
  EXPECT_EQ(text.find(" / "), std::string::npos) << text;
}

TEST(Lower, SketchIsNotLowered) {
  State s(testing::GemmBiasDag(64, 64, 64));
  ASSERT_TRUE(s.Split(kGemm, 0, {std::nullopt}).ok());
  auto f = Lower(s, "gemm");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(std::string(f.status().message()).find("unfilled"), std::string::npos);
}

TEST(Lower, ElementwiseChainUsesTheWorkspace) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{7, 9}, {16, 33}}) {
    auto dag = testing::ElementwiseChainDag(rows, cols);
    State s(dag);
    ASSERT_TRUE(s.Fuse(2, {0, 1}).ok());
    ASSERT_TRUE(s.Split(2, 0, {8}).ok());
    ASSERT_TRUE(s.Annotate(2, 1, IterAnnotation::kVectorize).ok());
    ASSERT_TRUE(s.Split(4, 1, {4}).ok());
    ASSERT_TRUE(s.Annotate(4, 0, IterAnnotation::kParallel).ok());
    auto f = Lower(s, "chain");
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->num_args, 3);
    EXPECT_EQ(f->buffers.size(), 5u);
    EXPECT_GE(f->workspace_bytes, 2 * rows * cols * 4);
    auto x = testing::RandomFloats(rows * cols, 5), y = testing::RandomFloats(rows * cols, 6);
    std::vector<float> out(rows * cols, NAN);
    ASSERT_TRUE(Interpret(*f, {x.data(), y.data(), out.data()}).ok());
    EXPECT_LT(testing::MaxAbsDiff(out, testing::ElementwiseChainReference(x, y)), 1e-6f);
  }
}

// Many random schedules, each checked against the reference through the interpreter.
TEST(Lower, RandomSchedulesMatchReference) {
  std::mt19937_64 rng(2024);
  int valid = 0;
  for (int trial = 0; trial < 150; ++trial) {
    GemmCase c{1 + static_cast<int64_t>(rng() % 19), 1 + static_cast<int64_t>(rng() % 23),
               1 + static_cast<int64_t>(rng() % 17)};
    State s(testing::GemmBiasDag(c.m, c.n, c.k));
    valid += testing::ApplyRandomSteps(&s, &rng, 10).applied;
    ASSERT_LT(GemmError(s, c), 1e-4f) << s.ToJson();
  }
  EXPECT_GT(valid, 300);
}

}  // namespace
}  // namespace tunefarm::tir
