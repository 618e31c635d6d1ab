#include <gtest/gtest.h>

#include <random>
#include <string>

#include "compiler/schedule/state.h"
#include "tests/common/random_schedule.h"
#include "tests/common/test_dags.h"

namespace tunefarm::schedule {
namespace {

constexpr int kGemm = 3;  // stage id of the matmul in GemmBiasDag

State TiledGemm() {
  State s(testing::GemmBiasDag(37, 29, 23));
  EXPECT_TRUE(s.Split(kGemm, 0, {8}).ok());
  EXPECT_TRUE(s.Split(kGemm, 2, {8}).ok());
  EXPECT_TRUE(s.Split(kGemm, 4, {4}).ok());
  EXPECT_TRUE(s.Reorder(kGemm, {0, 2, 4, 1, 5, 3}).ok());
  EXPECT_TRUE(s.Annotate(kGemm, 0, IterAnnotation::kParallel).ok());
  EXPECT_TRUE(s.Annotate(kGemm, 5, IterAnnotation::kVectorize).ok());
  EXPECT_TRUE(s.PragmaAutoUnroll(kGemm, 0, 16).ok());
  return s;
}

TEST(ScheduleState, InitialStateIsReadableWithoutLowering) {
  State s(testing::GemmBiasDag(37, 29, 23));
  const Stage& c = s.stage(kGemm);
  ASSERT_EQ(c.iters.size(), 3u);
  EXPECT_EQ(c.node_of(0).extent, 37);
  EXPECT_EQ(c.node_of(1).extent, 29);
  EXPECT_EQ(c.node_of(2).extent, 23);
  EXPECT_EQ(c.node_of(2).kind, IterKind::kReduce);
  EXPECT_TRUE(s.stage(0).is_placeholder);
}

TEST(ScheduleState, SplitReorderFuseAnnotate) {
  State s = TiledGemm();
  const Stage& c = s.stage(kGemm);
  ASSERT_EQ(c.iters.size(), 6u);
  EXPECT_EQ(c.node_of(0).extent, 5);  // ceil(37 / 8)
  EXPECT_EQ(c.node_of(0).name, "i0.0");
  EXPECT_EQ(c.iters[0].annotation, IterAnnotation::kParallel);
  EXPECT_EQ(c.node_of(5).name, "i1.1");
  EXPECT_EQ(c.iters[5].annotation, IterAnnotation::kVectorize);
  EXPECT_EQ(c.auto_unroll_max_step, 16);
  EXPECT_EQ(s.steps().size(), 7u);
  ASSERT_TRUE(s.Fuse(4, {0, 1}).ok());
  EXPECT_EQ(s.stage(4).iters.size(), 1u);
  EXPECT_EQ(s.stage(4).node_of(0).extent, 37 * 29);
  EXPECT_EQ(s.ToString().substr(0, 4), "C: i");
}

TEST(ScheduleState, SketchSplitsHaveUnknownExtents) {
  State s(testing::GemmBiasDag(64, 64, 64));
  ASSERT_TRUE(s.Split(kGemm, 0, {std::nullopt, 4}).ok());
  EXPECT_FALSE(s.IsConcrete());
  EXPECT_EQ(s.stage(kGemm).node_of(0).extent, kUnknownExtent);
  EXPECT_EQ(s.stage(kGemm).node_of(2).extent, 4);
  EXPECT_NE(s.ToJson().find("null"), std::string::npos);
}

TEST(ScheduleState, InvalidStepsGiveTheirMessages) {
  struct Case {
    Step step;
    std::string message;
  } cases[] = {
      {SplitStep{9, 0, 37, {{4}}}, "SP stage 9: no such stage"},
      {SplitStep{0, 0, 37, {{4}}}, "SP stage 0: a placeholder has no loops"},
      {SplitStep{kGemm, 7, 37, {{4}}}, "SP stage 3 iter 7: no such iterator"},
      {SplitStep{kGemm, 0, 37, {}}, "SP stage 3 iter 0: no split lengths"},
      {SplitStep{kGemm, 0, 37, {{0}}}, "split length 0 is not positive"},
      {SplitStep{kGemm, 0, 36, {{4}}}, "recorded extent 36 differs from the iterator's 37"},
      {ReorderStep{kGemm, {0, 1}}, "RE stage 3: order has 2 iterators, the stage has 3"},
      {ReorderStep{kGemm, {0, 0, 1}}, "not a permutation"},
      {FuseStep{kGemm, {0}}, "FU stage 3: fuse needs at least two iterators"},
      {FuseStep{kGemm, {0, 2}}, "only consecutive iterators"},
      {FuseStep{kGemm, {1, 2}}, "cannot fuse a space iterator with a reduce iterator"},
      {AnnotationStep{kGemm, 2, IterAnnotation::kParallel}, "AN stage 3 iter 2: cannot parallelize a reduce iterator"},
      {AnnotationStep{kGemm, 2, IterAnnotation::kVectorize}, "cannot vectorize a reduce iterator"},
      {AnnotationStep{kGemm, 0, IterAnnotation::kVectorize}, "only the innermost iterator can be vectorized"},
      {AnnotationStep{kGemm, 0, IterAnnotation::kUnroll}, "unroll extent"},  // fine: 37 <= 256
      {PragmaStep{kGemm, 0, -1}, "PR stage 3 iter 0: auto_unroll_max_step must be in [0, 4096]"},
  };
  for (const Case& c : cases) {
    State s(testing::GemmBiasDag(37, 29, 23));
    absl::Status status = s.Apply(c.step);
    if (c.message == "unroll extent") {
      EXPECT_TRUE(status.ok()) << status;
      continue;
    }
    ASSERT_FALSE(status.ok()) << c.message;
    EXPECT_NE(std::string(status.message()).find(c.message), std::string::npos) << status;
    EXPECT_TRUE(s.steps().empty());  // a rejected step leaves the state unchanged
    EXPECT_EQ(s.stage(kGemm).iters.size(), 3u);
  }
}

TEST(ScheduleState, AnnotationsStayConsistentUnderLaterSteps) {
  State s(testing::GemmBiasDag(16, 16, 16));
  ASSERT_TRUE(s.Annotate(kGemm, 0, IterAnnotation::kParallel).ok());
  EXPECT_FALSE(s.Split(kGemm, 0, {4}).ok());  // annotated
  EXPECT_FALSE(s.Annotate(kGemm, 0, IterAnnotation::kUnroll).ok());  // already annotated
  auto moved = s.Reorder(kGemm, {2, 0, 1});
  ASSERT_FALSE(moved.ok());
  EXPECT_NE(std::string(moved.message()).find("parallel iterator cannot move inside a reduce"), std::string::npos);
  State v(testing::GemmBiasDag(16, 16, 16));
  ASSERT_TRUE(v.Reorder(kGemm, {0, 2, 1}).ok());
  ASSERT_TRUE(v.Annotate(kGemm, 2, IterAnnotation::kVectorize).ok());
  EXPECT_FALSE(v.Reorder(kGemm, {0, 2, 1}).ok());  // would move the vector loop outward
}

TEST(ScheduleState, FollowSplitsTakeTheirLengthsFromEarlierSplits) {
  State s(testing::GemmBiasDag(64, 48, 32));
  ASSERT_TRUE(s.Split(4, 0, {4, 2}).ok());                 // step 0: out's i -> 8 x 4 x 2
  ASSERT_TRUE(s.FollowSplit(kGemm, 0, 0, 2).ok());         // C's i by [4, 2]
  EXPECT_EQ(s.stage(kGemm).node_of(1).extent, 4);
  EXPECT_EQ(s.stage(kGemm).node_of(2).extent, 2);
  ASSERT_TRUE(s.FollowSplit(kGemm, 3, 0, 1).ok());         // C's j by [8] = 4 * 2
  EXPECT_EQ(s.stage(kGemm).node_of(4).extent, 8);
  ASSERT_TRUE(s.FollowFusedSplit(kGemm, 5, {0, 0}, 1, true).ok());  // k by [2 * 2]
  EXPECT_EQ(s.stage(kGemm).node_of(6).extent, 4);
  ASSERT_TRUE(s.Split(4, 3, {4}).ok());                     // step 4: out's j -> 12 x 4
  ASSERT_TRUE(s.FollowFusedSplit(kGemm, 0, {4}, 0, false).ok());  // nparts 4 of C's i.0 (8)
  EXPECT_EQ(s.stage(kGemm).node_of(0).extent, 4);
  EXPECT_EQ(s.stage(kGemm).node_of(1).extent, 2);
  auto bad = s.FollowSplit(kGemm, 0, 2, 1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.message()).find("FSP stage 3 iter 0: source step 2 is not a split"), std::string::npos) << bad;
  bad = s.FollowSplit(kGemm, 0, 0, 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.message()).find("n_split 3 must be in [1, 2]"), std::string::npos) << bad;
  auto replayed = State::FromJson(s.original_dag(), s.ToJson());
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(replayed->ToString(), s.ToString());
}

TEST(ScheduleJson, RoundTripReplaysTheSameState) {
  State s = TiledGemm();
  std::string json = s.ToJson();
  EXPECT_EQ(json,
            "{\"format\":1,\"steps\":[[\"SP\",3,0,37,[8]],[\"SP\",3,2,29,[8]],[\"SP\",3,4,23,[4]],"
            "[\"RE\",3,[0,2,4,1,5,3]],[\"AN\",3,0,\"parallel\"],[\"AN\",3,5,\"vectorize\"],"
            "[\"PR\",3,0,\"auto_unroll_max_step$16\"]]}");
  auto replayed = State::FromJson(s.original_dag(), json);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(replayed->ToJson(), json);
  EXPECT_EQ(replayed->Hash(), s.Hash());
  EXPECT_EQ(replayed->ToString(), s.ToString());
  EXPECT_EQ(s.Hash().size(), 64u);
}

TEST(ScheduleJson, MalformedJsonIsAnErrorNotACrash) {
  auto dag = testing::GemmBiasDag(8, 8, 8);
  const char* bad[] = {
      "", "{", "[]", "{\"format\":2,\"steps\":[]}", "{\"format\":1}", "{\"format\":1,\"steps\":[1]}",
      "{\"format\":1,\"steps\":[[\"XX\",1]]}", "{\"format\":1,\"steps\":[[\"SP\",3,0,8,[\"a\"]]]}",
      "{\"format\":1,\"steps\":[[\"SP\",3,0]]}", "{\"format\":1,\"steps\":[[\"AN\",3,0,\"fast\"]]}",
      "{\"format\":1,\"steps\":[[\"PR\",3,0,\"auto_unroll_max_step$x\"]]}",
      "{\"format\":1,\"steps\":[[\"RE\",3,[0,1,\"2\"]]]}",
      "{\"format\":1,\"steps\":[[\"SP\",99,0,8,[2]]]}",  // parses, but the step is invalid
      // Integers out of the field's range are refused, not wrapped: stage 2^32 + 3 is not stage 3.
      "{\"format\":1,\"steps\":[[\"SP\",4294967299,0,8,[2]]]}",
      "{\"format\":1,\"steps\":[[\"RE\",3,[0,4294967297]]]}",
      "{\"format\":1,\"steps\":[[\"SP\",3,0,8,[18446744073709551615]]]}",
  };
  for (const char* json : bad) {
    auto s = State::FromJson(dag, json);
    EXPECT_FALSE(s.ok()) << json;
  }
}

TEST(ScheduleJson, RandomStatesRoundTrip) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200; ++i) {
    State s(testing::GemmBiasDag(37, 29, 23));
    testing::ApplyRandomSteps(&s, &rng, 12);
    auto replayed = State::FromJson(s.original_dag(), s.ToJson());
    ASSERT_TRUE(replayed.ok()) << replayed.status() << "\n" << s.ToJson();
    EXPECT_EQ(replayed->ToString(), s.ToString());
  }
}

}  // namespace
}  // namespace tunefarm::schedule
