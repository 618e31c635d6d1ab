// GPU thread bindings: the schedule's blockIdx/threadIdx annotations, their lowering to
// thread-binding loops, the launch planner's shapes and refusals, and the bound programs'
// numerics (the interpreter runs a bound loop as a serial loop, which is what it means).
#include "compiler/tir/gpu_launch.h"

#include <gtest/gtest.h>

#include "compiler/tir/lower.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/test_dags.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;
using schedule::State;

constexpr int kGemmC = 2;  // GemmDag: A, B, C

// C[64,128] = A[64,32] B[32,128] as 8 x 4 blocks of 8 x 32 threads, one output per thread.
State BoundGemm(int64_t rows_per_block = 8) {
  State s(testing::GemmDag(64, 128, 32));
  EXPECT_TRUE(s.Split(kGemmC, 0, {rows_per_block}).ok());
  EXPECT_TRUE(s.Split(kGemmC, 2, {32}).ok());
  EXPECT_TRUE(s.Reorder(kGemmC, {0, 2, 1, 3, 4}).ok());
  EXPECT_TRUE(s.Annotate(kGemmC, 0, IterAnnotation::kBlockY).ok());
  EXPECT_TRUE(s.Annotate(kGemmC, 1, IterAnnotation::kBlockX).ok());
  EXPECT_TRUE(s.Annotate(kGemmC, 2, IterAnnotation::kThreadY).ok());
  EXPECT_TRUE(s.Annotate(kGemmC, 3, IterAnnotation::kThreadX).ok());
  return s;
}

TEST(GpuLaunch, ABoundGemmIsOneLaunchOfItsGridAndBlockAndMatchesTheDefinition) {
  State s = BoundGemm();
  EXPECT_EQ(s.ToString().find("blockIdx.y") != std::string::npos, true) << s.ToString();
  absl::StatusOr<PrimFunc> f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_NE(PrimFuncToString(*f).find("bound ("), std::string::npos) << PrimFuncToString(*f);
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(*f, GpuLimits{});
  ASSERT_TRUE(launches.ok()) << launches.status();
  ASSERT_EQ(launches->size(), 1u);
  EXPECT_EQ((*launches)[0].grid, (std::array<int64_t, 3>{4, 8, 1}));
  EXPECT_EQ((*launches)[0].block, (std::array<int64_t, 3>{32, 8, 1}));
  EXPECT_LT(testing::InterpretedError(s, 7), 1e-4);
}

TEST(GpuLaunch, TheBindingsSurviveTheJsonRoundTrip) {
  State s = BoundGemm();
  absl::StatusOr<State> again = State::FromJson(s.original_dag(), s.ToJson());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->ToString(), s.ToString());
  EXPECT_NE(s.ToJson().find("\"threadIdx.x\""), std::string::npos) << s.ToJson();
}

TEST(GpuLaunch, EachRootStageIsALaunchOfItsOwn) {
  State s(testing::ElementwiseChainDag(48, 40));  // x, y, p, s, r: three root stages
  for (int stage : {2, 3, 4}) {
    ASSERT_TRUE(s.Fuse(stage, {0, 1}).ok());
    ASSERT_TRUE(s.Split(stage, 0, {64}).ok());  // 1920 = 30 x 64
    ASSERT_TRUE(s.Annotate(stage, 0, IterAnnotation::kBlockX).ok());
    ASSERT_TRUE(s.Annotate(stage, 1, IterAnnotation::kThreadX).ok());
  }
  absl::StatusOr<PrimFunc> f = Lower(s, "chain");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(*f, GpuLimits{});
  ASSERT_TRUE(launches.ok()) << launches.status();
  ASSERT_EQ(launches->size(), 3u);
  for (const GpuLaunch& l : *launches) {
    EXPECT_EQ(l.grid, (std::array<int64_t, 3>{30, 1, 1}));
    EXPECT_EQ(l.block, (std::array<int64_t, 3>{64, 1, 1}));
  }
  EXPECT_EQ(testing::InterpretedError(s, 3), 0.0);
}

TEST(GpuLaunch, RefusesMoreThreadsPerBlockThanTheDeviceHas) {
  State s = BoundGemm(/*rows_per_block=*/64);  // 64 x 32 = 2048 threads
  absl::StatusOr<PrimFunc> f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(*f, GpuLimits{});
  ASSERT_FALSE(launches.ok());
  EXPECT_NE(launches.status().message().find("2048 threads per block exceed the device's 1024"), std::string::npos)
      << launches.status();
  GpuLimits small;
  small.max_threads_per_block = 128;
  EXPECT_FALSE(PlanGpuLaunches(*Lower(BoundGemm(), "gemm"), small).ok());  // 256 threads
}

TEST(GpuLaunch, RefusesALocalBufferAroundTheThreadBindings) {
  // p computed per block of r: its buffer would be one per thread, each holding the whole row.
  State s(testing::ElementwiseChainDag(48, 40));
  ASSERT_TRUE(s.ComputeInline(3).ok());
  ASSERT_TRUE(s.Annotate(4, 0, IterAnnotation::kBlockX).ok());
  ASSERT_TRUE(s.Annotate(4, 1, IterAnnotation::kThreadX).ok());
  ASSERT_TRUE(s.ComputeAt(2, 4, 0).ok());
  absl::StatusOr<PrimFunc> f = Lower(s, "chain");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(*f, GpuLimits{});
  ASSERT_FALSE(launches.ok()) << PrimFuncToString(*f);
  EXPECT_NE(launches.status().message().find("a local buffer is allocated around the loop bound to threadIdx.x"),
            std::string::npos)
      << launches.status();
  // Attached inside the thread binding instead, p is each thread's own element: valid.
  State t(testing::ElementwiseChainDag(48, 40));
  ASSERT_TRUE(t.ComputeInline(3).ok());
  ASSERT_TRUE(t.Annotate(4, 0, IterAnnotation::kBlockX).ok());
  ASSERT_TRUE(t.Annotate(4, 1, IterAnnotation::kThreadX).ok());
  ASSERT_TRUE(t.ComputeAt(2, 4, 1).ok());
  absl::StatusOr<PrimFunc> g = Lower(t, "chain");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(PlanGpuLaunches(*g, GpuLimits{}).ok()) << PrimFuncToString(*g);
  EXPECT_EQ(testing::InterpretedError(t, 5), 0.0);
}

// for bx @blockIdx.x(4) { for t @threadIdx.x(a) { out[...] = 1 }; for t2 @threadIdx.x(b) {...} }
PrimFunc TwoThreadLoops(int64_t a, int64_t b) {
  PrimFunc f;
  f.name = "two";
  f.buffers.push_back(Buffer{"out", te::DType::kFloat32, {4, 64}, BufferScope::kArg, ArgRole::kOutput});
  f.num_args = 1;
  Expr bx = te::MakeVar("bx", 0), t1 = te::MakeVar("t1", 1), t2 = te::MakeVar("t2", 2);
  auto index = [&](const Expr& t) { return bx * te::IntImm(te::kIndexType, 64) + t; };
  auto idx = [](int64_t v) { return te::IntImm(te::kIndexType, v); };
  Stmt first = For(t1, idx(a), ForKind::kThreadBinding, Store(0, index(t1), te::FloatImm(te::DType::kFloat32, 1)),
                   ThreadAxis::kThreadX);
  Stmt second = For(t2, idx(b), ForKind::kThreadBinding, Store(0, index(t2), te::FloatImm(te::DType::kFloat32, 2)),
                    ThreadAxis::kThreadX);
  f.body = For(bx, idx(4), ForKind::kThreadBinding, Seq({first, second}), ThreadAxis::kBlockX);
  return f;
}

TEST(GpuLaunch, RefusesAGlobalStoreThatEveryThreadWouldMake) {
  // for bx @blockIdx.x(4) { out[bx * 64] = 0; for t @threadIdx.x(64) { out[bx * 64 + t] = 1 } }:
  // all 64 threads of a block would store out[bx * 64] at once.
  PrimFunc f = TwoThreadLoops(64, 64);
  Stmt loops = f.body->body;
  Stmt init = Store(0, te::MakeVar("bx", 0) * te::IntImm(te::kIndexType, 64), te::FloatImm(te::DType::kFloat32, 0));
  f.body = For(te::MakeVar("bx", 0), te::IntImm(te::kIndexType, 4), ForKind::kThreadBinding, Seq({init, loops}),
               ThreadAxis::kBlockX);
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(f, GpuLimits{});
  ASSERT_FALSE(launches.ok()) << PrimFuncToString(f);
  EXPECT_NE(launches.status().message().find("a store to out is not inside the loop bound to threadIdx.x (extent "
                                             "64): every thread along it would write the same elements at once"),
            std::string::npos)
      << launches.status();
}

TEST(GpuLaunch, RefusesLocalBuffersBeyondWhatAThreadMayHold) {
  // Inside each thread: a local array of n floats, written then copied out.
  auto with_local = [](int64_t n) {
    PrimFunc f = TwoThreadLoops(64, 64);
    f.buffers.push_back(Buffer{"tile", te::DType::kFloat32, {n}, BufferScope::kLocal});
    Expr t = te::MakeVar("t1", 1);
    Stmt body = Allocate(1, Store(1, te::IntImm(te::kIndexType, 0), te::FloatImm(te::DType::kFloat32, 1)));
    f.body = For(te::MakeVar("bx", 0), te::IntImm(te::kIndexType, 4), ForKind::kThreadBinding,
                 For(t, te::IntImm(te::kIndexType, 64), ForKind::kThreadBinding, body, ThreadAxis::kThreadX),
                 ThreadAxis::kBlockX);
    return f;
  };
  absl::StatusOr<std::vector<GpuLaunch>> fits = PlanGpuLaunches(with_local(1024), GpuLimits{});
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ((*fits)[0].local_bytes, 4096);
  absl::StatusOr<std::vector<GpuLaunch>> big = PlanGpuLaunches(with_local(256 * 1024), GpuLimits{});
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("the local buffers need 1048576 bytes per thread, over the 524288"),
            std::string::npos)
      << big.status();
}

TEST(GpuLaunch, RefusesTwoExtentsForOneThreadAxisInALaunch) {
  absl::StatusOr<std::vector<GpuLaunch>> same = PlanGpuLaunches(TwoThreadLoops(64, 64), GpuLimits{});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ((*same)[0].block, (std::array<int64_t, 3>{64, 1, 1}));
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(TwoThreadLoops(8, 40), GpuLimits{});
  ASSERT_FALSE(launches.ok());
  EXPECT_NE(launches.status().message().find("threadIdx.x has extent 8 in one loop and 40 in another"),
            std::string::npos)
      << launches.status();
}

TEST(GpuLaunch, TheAnnotationStepRefusesBindingsThatCannotRun) {
  State s(testing::GemmDag(64, 128, 32));
  auto expect = [&](absl::Status st, std::string_view what) {
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_NE(std::string(st.message()).find(what), std::string::npos) << st;
  };
  expect(s.Annotate(kGemmC, 2, IterAnnotation::kBlockX), "cannot bind a reduce iterator");
  expect(s.Annotate(kGemmC, 2, IterAnnotation::kThreadY), "but the innermost one to threadIdx.x");
  ASSERT_TRUE(s.Annotate(kGemmC, 0, IterAnnotation::kThreadX).ok());
  expect(s.Annotate(kGemmC, 1, IterAnnotation::kThreadX), "threadIdx.x is already bound to iterator 0");
  expect(s.Annotate(kGemmC, 1, IterAnnotation::kBlockX), "a block axis cannot be nested inside thread axis");
  State r(testing::GemmDag(64, 128, 32));
  ASSERT_TRUE(r.Reorder(kGemmC, {2, 0, 1}).ok());
  expect(r.Annotate(kGemmC, 1, IterAnnotation::kBlockX), "nested inside a reduce iterator");
}

}  // namespace
}  // namespace tunefarm::tir
