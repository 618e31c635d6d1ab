// Steps that add stages: cache_write, cache_read, rfactor. Renumbering and correctness.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ops/conv2d.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/test_dags.h"

namespace tunefarm::tir {
namespace {

using schedule::ComputeLocation;
using schedule::IterAnnotation;
using schedule::State;

float GemmError(const State& s, int64_t m, int64_t n, int64_t k) {
  auto f = Lower(s, "gemm");
  EXPECT_TRUE(f.ok()) << f.status() << "\n" << s.ToString();
  if (!f.ok()) return 1e30f;
  auto a = testing::RandomFloats(m * k, 1), w = testing::RandomFloats(k * n, 2), bias = testing::RandomFloats(n, 3);
  std::vector<float> out(m * n, NAN);
  absl::Status st = Interpret(*f, {a.data(), w.data(), bias.data(), out.data()});
  EXPECT_TRUE(st.ok()) << st << "\n" << PrimFuncToString(*f);
  return testing::MaxAbsDiff(out, testing::GemmBiasReference(a, w, bias, m, n, k));
}

void ExpectNames(const State& s, std::vector<std::string> names) {
  ASSERT_EQ(s.dag().num_tensors(), static_cast<int>(names.size()));
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(s.dag().tensor(static_cast<int>(i)).name, names[i]) << i;
    EXPECT_EQ(s.stage(static_cast<int>(i)).tensor_id, static_cast<int>(i));
  }
}

TEST(CacheSteps, CacheWriteInsertsTheLocalStageBeforeAndRenumbers) {
  State s(testing::GemmBiasDag(13, 11, 9));
  ASSERT_TRUE(s.CacheWrite(3, "local").ok());
  ExpectNames(s, {"A", "B", "bias", "C.local", "C", "out"});
  EXPECT_EQ(s.stage(3).scope, "local");
  EXPECT_EQ(s.stage(3).num_reduce_axes, 1);  // the reduction moved into the cache
  EXPECT_EQ(s.stage(4).num_reduce_axes, 0);  // C is a copy now
  EXPECT_EQ(s.dag().outputs(), std::vector<int>{5});
  EXPECT_EQ(s.original_dag()->num_tensors(), 5);
  // Typical use: tile C, compute the local accumulator per tile.
  ASSERT_TRUE(s.Split(4, 1, {4}).ok());
  ASSERT_TRUE(s.ComputeAt(3, 4, 1).ok());
  EXPECT_LT(GemmError(s, 13, 11, 9), 1e-4f);
  auto replayed = State::FromJson(s.original_dag(), s.ToJson());
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(replayed->ToString(), s.ToString());
  EXPECT_EQ(replayed->dag().WorkloadKey(), s.dag().WorkloadKey());
}

TEST(CacheSteps, CacheReadOfAnInputFeedsOnlyTheNamedReader) {
  State s(testing::GemmBiasDag(13, 11, 9));
  ASSERT_TRUE(s.CacheRead(1, "shared", {3}).ok());  // B packed for C
  ExpectNames(s, {"A", "B", "B.shared", "bias", "C", "out"});
  EXPECT_EQ(s.dag().analysis(4).reads.count(2), 1u);  // C reads the copy
  EXPECT_EQ(s.dag().analysis(4).reads.count(1), 0u);
  ASSERT_TRUE(s.Split(4, 1, {4}).ok());               // C: i j.0 j.1 k
  ASSERT_TRUE(s.ComputeAt(2, 4, 1).ok());             // copy the 9x4 panel of B per j tile
  EXPECT_EQ(s.stage(2).location, ComputeLocation::kAt);
  EXPECT_LT(GemmError(s, 13, 11, 9), 1e-4f);
}

TEST(CacheSteps, RfactorSplitsAReduction) {
  for (int64_t k : {12, 13}) {  // 13 does not divide by 4: the padded points add zero
    for (int iter : {2, 3}) {   // factor the outer or the inner half of k
      State s(testing::GemmBiasDag(5, 6, k));
      ASSERT_TRUE(s.Split(3, 2, {4}).ok());
      ASSERT_TRUE(s.Rfactor(3, iter).ok());
      ExpectNames(s, {"A", "B", "bias", "C.rf", "C", "out"});
      int64_t factored = iter == 3 ? 4 : (k + 3) / 4;
      EXPECT_EQ(s.dag().tensor(3).shape, (std::vector<int64_t>{factored, 5, 6}));
      EXPECT_EQ(s.dag().tensor(4).reduce_extents, std::vector<int64_t>{factored});
      ASSERT_TRUE(s.Annotate(3, 0, IterAnnotation::kParallel).ok());  // the factored axis is a space axis now
      EXPECT_LT(GemmError(s, 5, 6, k), 1e-4f) << k << " " << iter;
    }
  }
}

// conv2d NCHW 1x3x6x7, 4 filters 3x3, pad 1: reduce axes rc (3), ry (3), rx (3).
std::shared_ptr<const te::ComputeDag> SmallConvDag() {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, 3, 6, 7});
  auto w = b.Placeholder("w", te::DType::kFloat32, {4, 3, 3, 3}, true);
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  return b.Build({ops::Conv2dNchw(b, x, w, p)});
}

TEST(CacheSteps, RfactorOfFusedReduceIterators) {
  // conv: n k oh ow rc ry rx. Fuse ry,rx or all three, split the fusion by 4 (9 and 27 do not
  // divide: padded points), factor either half, and place the factor axis first or last.
  for (int first : {4, 5}) {
    for (bool split : {false, true}) {
      for (int half : {0, 1}) {
        for (int factor_axis : {0, 4}) {
          if (!split && half == 1) continue;
          State s(SmallConvDag());
          std::vector<int> fused;
          for (int i = first; i < 7; ++i) fused.push_back(i);
          ASSERT_TRUE(s.Fuse(3, fused).ok());
          if (split) {
            ASSERT_TRUE(s.Split(3, first, {4}).ok());
          }
          ASSERT_TRUE(s.Rfactor(3, first + half, factor_axis).ok()) << s.ToString();
          const auto& rf = s.dag().tensor(3);
          EXPECT_EQ(rf.name, "conv2d.rf");
          EXPECT_EQ(rf.shape.size(), 5u);
          int64_t k = first == 4 ? 27 : 9;
          int64_t factored = !split ? k : half == 1 ? 4 : (k + 3) / 4;
          EXPECT_EQ(rf.shape[factor_axis], factored);
          // The factored axis is a space axis of the new stage: it can run in parallel.
          ASSERT_TRUE(s.Annotate(3, factor_axis, IterAnnotation::kParallel).ok());
          EXPECT_LT(testing::InterpretedError(s, 11), 1e-4) << first << split << half << factor_axis << "\n" << s.ToString();
          auto replayed = State::FromJson(s.original_dag(), s.ToJson());
          ASSERT_TRUE(replayed.ok()) << replayed.status();
          EXPECT_EQ(replayed->ToString(), s.ToString());
        }
      }
    }
  }
}

TEST(CacheSteps, RfactorRefusesWhatItCannotFactor) {
  auto expect = [](absl::Status st, std::string_view what) {
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_NE(std::string(st.message()).find(what), std::string::npos) << st;
  };
  State s(SmallConvDag());
  expect(s.Rfactor(3, 1), "RF stage 3 iter 1: not a reduce iterator");
  expect(s.Rfactor(3, 4, 5), "factor axis 5 is not in [0, 4]");
  ASSERT_TRUE(s.Split(3, 3, {2}).ok());  // a space split first
  expect(s.Rfactor(3, 5), "with no other loop transformation before it");
  EXPECT_EQ(s.dag().num_tensors(), 4);  // x w pad conv2d: nothing was added
}

TEST(CacheSteps, InvalidUsesAreRejected) {
  auto expect = [](absl::Status st, std::string_view what) {
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_NE(std::string(st.message()).find(what), std::string::npos) << st;
  };
  State s(testing::GemmBiasDag(8, 8, 8));
  ASSERT_TRUE(s.Split(3, 0, {2}).ok());
  expect(s.CacheWrite(3, "local"), "CHW stage 3: the stage already has loop transformations");
  expect(s.CacheWrite(0, "local"), "a placeholder has no loops");
  expect(s.CacheWrite(4, ""), "no scope");
  expect(s.CacheRead(1, "shared", {4}), "stage 4 does not read this stage");
  expect(s.CacheRead(1, "shared", {}), "no readers");
  expect(s.CacheRead(1, "shared", {3, 3}), "listed twice");
  expect(s.Rfactor(4, 0), "RF stage 4 iter 0: the stage has no reduction");
  expect(s.Rfactor(3, 0), "not a reduce iterator");
  State t(testing::GemmBiasDag(8, 8, 8));
  ASSERT_TRUE(t.ComputeAt(3, 4, 0).ok());
  expect(t.CacheRead(3, "shared", {4}), "cache_read before compute_at");
  expect(t.Rfactor(3, 2), "at the root");
  EXPECT_EQ(t.dag().num_tensors(), 5);  // nothing was added by the rejected steps
}

}  // namespace
}  // namespace tunefarm::tir
