// The layout rewrite of constant weights: the rewritten tensor's shape follows the reader's
// loops, the kernel takes it in the weights' place, and the kernel run on the weights
// transformed at "build time" (TransformWeights) computes what the original DAG computes.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/tir/interpreter.h"
#include "compiler/tir/layout_transform.h"
#include "compiler/tir/lower.h"
#include "tests/common/test_dags.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;
using schedule::State;

std::string Bytes(const std::vector<float>& v) { return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4); }

// C: i.0 j.0 k i.1 j.1 (4 x 4 tiles) of a 13 x 11 x 9 GEMM + bias.
State TiledGemm() {
  State s(testing::GemmBiasDag(13, 11, 9));
  EXPECT_TRUE(s.Split(3, 0, {4}).ok());
  EXPECT_TRUE(s.Split(3, 2, {4}).ok());
  EXPECT_TRUE(s.Reorder(3, {0, 2, 4, 1, 3}).ok());
  return s;
}

TEST(LayoutRewrite, WeightsFollowTheReadersLoops) {
  State s = TiledGemm();
  ASSERT_TRUE(s.LayoutRewrite(1, 3).ok());  // A B B.layout bias C out
  EXPECT_EQ(s.dag().tensor(2).name, "B.layout");
  EXPECT_EQ(s.dag().tensor(2).shape, (std::vector<int64_t>{3, 9, 4}));  // j.0 k j.1: panels of 4 columns
  EXPECT_EQ(s.stage(2).scope, "layout");
  ASSERT_TRUE(s.Annotate(4, 0, IterAnnotation::kParallel).ok());
  ASSERT_TRUE(s.Annotate(4, 4, IterAnnotation::kVectorize).ok());

  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->num_args, 4);
  EXPECT_EQ(f->buffers[1].name, "B.layout");  // in B's place
  EXPECT_EQ(f->buffers[1].role, ArgRole::kParam);
  auto rewritten = RewrittenParams(s);
  ASSERT_EQ(rewritten.size(), 1u);
  EXPECT_EQ(rewritten[0].arg, 1);

  auto a = testing::RandomFloats(13 * 9, 1), w = testing::RandomFloats(9 * 11, 2), bias = testing::RandomFloats(11, 3);
  auto packed = TransformWeights(*rewritten[0].transform, Bytes(w));
  ASSERT_TRUE(packed.ok()) << packed.status();
  ASSERT_EQ(packed->size(), 3u * 9 * 4 * 4);
  std::vector<float> out(13 * 11, NAN);
  ASSERT_TRUE(Interpret(*f, {a.data(), packed->data(), bias.data(), out.data()}).ok());
  EXPECT_LT(testing::MaxAbsDiff(out, testing::GemmBiasReference(a, w, bias, 13, 11, 9)), 1e-4f);
  // Past column 10 the panels hold zeros (11 does not divide by 4).
  std::vector<float> p(packed->size() / 4);
  std::memcpy(p.data(), packed->data(), packed->size());
  EXPECT_EQ(p[(2 * 9 + 0) * 4 + 3], 0.f);
  EXPECT_EQ(p[(0 * 9 + 5) * 4 + 2], w[5 * 11 + 2]);

  auto replayed = State::FromJson(s.original_dag(), s.ToJson());
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(replayed->ToString(), s.ToString());
  EXPECT_NE(s.ToJson().find(R"(["LR",1,3])"), std::string::npos) << s.ToJson();
}

TEST(LayoutRewrite, WithARegisterTileAndAFusedReduction) {
  // The weights read by a local tile whose k loop was fused with nothing and split in two.
  State s(testing::GemmBiasDag(12, 16, 10));
  ASSERT_TRUE(s.CacheWrite(3, "local").ok());  // A B bias C.local C out
  ASSERT_TRUE(s.Split(4, 0, {4}).ok());
  ASSERT_TRUE(s.Split(4, 2, {8}).ok());
  ASSERT_TRUE(s.Reorder(4, {0, 2, 1, 3}).ok());
  ASSERT_TRUE(s.ComputeAt(3, 4, 1).ok());
  ASSERT_TRUE(s.Split(3, 1, {8}).ok());  // C.local: i j.0 j.1 k
  ASSERT_TRUE(s.Split(3, 3, {3}).ok());  // i j.0 j.1 k.0 k.1 (10 = 4 x 3, padded)
  ASSERT_TRUE(s.Reorder(3, {1, 3, 0, 4, 2}).ok());  // j.0 k.0 i k.1 j.1
  ASSERT_TRUE(s.LayoutRewrite(1, 3).ok());
  EXPECT_EQ(s.dag().tensor(2).shape, (std::vector<int64_t>{2, 4, 3, 8}));  // j.0 k.0 k.1 j.1
  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  auto a = testing::RandomFloats(12 * 10, 4), w = testing::RandomFloats(10 * 16, 5), bias = testing::RandomFloats(16, 6);
  auto packed = TransformWeights(*RewrittenParams(s)[0].transform, Bytes(w));
  ASSERT_TRUE(packed.ok()) << packed.status();
  std::vector<float> out(12 * 16, NAN);
  ASSERT_TRUE(Interpret(*f, {a.data(), packed->data(), bias.data(), out.data()}).ok()) << PrimFuncToString(*f);
  EXPECT_LT(testing::MaxAbsDiff(out, testing::GemmBiasReference(a, w, bias, 12, 16, 10)), 1e-4f) << PrimFuncToString(*f);
}

TEST(LayoutRewrite, RefusesWhatItCannotRewrite) {
  auto expect = [](absl::Status st, std::string_view what) {
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_NE(std::string(st.message()).find(what), std::string::npos) << st;
  };
  State s = TiledGemm();
  expect(s.LayoutRewrite(0, 3), "LR stage 0: only a constant placeholder");
  expect(s.LayoutRewrite(1, 4), "must be read by stage 4 alone");
  expect(s.LayoutRewrite(7, 3), "no such tensor");
  State fused = TiledGemm();
  ASSERT_TRUE(fused.Fuse(3, {0, 1}).ok());  // i.0 with j.0
  expect(fused.LayoutRewrite(1, 3), "mixes a weight axis with another axis");
  ASSERT_TRUE(s.LayoutRewrite(1, 3).ok());
  expect(s.Split(2, 0, {2}), "a rewritten weight layout is computed at build time");
  expect(s.CacheWrite(5, "layout"), "reserved for layout rewrites");  // out, untouched
  auto bad = TransformWeights(*RewrittenParams(s)[0].transform, "abc");
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace tunefarm::tir
