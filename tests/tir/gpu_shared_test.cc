// GPU shared memory: a "shared" cache stage is a tile of the block's shared memory, its region
// spanning the block's threads; the threads fetch it together (a loop bound again to the axes of
// the loops around it); the launch counts its bytes; barriers order the fetch and the reads on
// the GPU. The numerics are the serial reading's (the interpreter), which needs no barrier.
#include <gtest/gtest.h>

#include <string>

#include "compiler/tir/gpu_barriers.h"
#include "compiler/tir/gpu_interpreter.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/stmt_functor.h"
#include "tests/common/count_occurrences.h"
#include "tests/common/gpu_schedules.h"
#include "tests/common/launch_expectations.h"
#include "tests/common/interpreted_error.h"

namespace tunefarm::tir {
namespace {

using testing::SharedTiledGemm;

Expr Idx(int64_t v) { return te::IntImm(te::kIndexType, v); }

// A hand-written function's buffers: a float32 output of `out` elements, and a shared tile of
// `tile` elements when tile > 0 (buffer 1). The test writes the body.
PrimFunc OutAndTile(const char* name, int64_t out, int64_t tile) {
  PrimFunc f;
  f.name = name;
  f.buffers.push_back(Buffer{"out", te::DType::kFloat32, {out}, BufferScope::kArg, ArgRole::kOutput});
  if (tile > 0) f.buffers.push_back(Buffer{"tile", te::DType::kFloat32, {tile}, BufferScope::kShared});
  f.num_args = 1;
  return f;
}

TEST(GpuShared, ASharedTileHoldsTheBlocksRegionAndTheGemmMatchesItsDefinition) {
  schedule::State s = SharedTiledGemm(64, 64, 64);
  absl::StatusOr<PrimFunc> f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = PrimFuncToString(*f);
  // 16 rows x 16 steps of k, whatever thread reads them: not one thread's row.
  EXPECT_NE(text.find("shared A.shared: float32[256]"), std::string::npos) << text;
  EXPECT_NE(text.find("shared B.shared: float32[256]"), std::string::npos) << text;
  testing::ExpectLaunches(*f, 1, {{4, 4, 1}, {16, 16, 1}, 2 * 256 * 4, 0});
  EXPECT_LT(testing::InterpretedError(s, 3), 1e-4) << text;
}

TEST(GpuShared, BarriersGoAfterTheFetchAndAtTheEndOfEachStepAlongK) {
  absl::StatusOr<PrimFunc> f = Lower(SharedTiledGemm(64, 64, 64), "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(testing::CountOccurrences(PrimFuncToString(*f), "barrier()"), 0);  // the serial reading needs none
  absl::StatusOr<Stmt> body = InsertSharedMemoryBarriers(*f, f->body);
  ASSERT_TRUE(body.ok()) << body.status();
  PrimFunc with_barriers = *f;
  with_barriers.body = *body;
  const std::string text = PrimFuncToString(with_barriers);
  ASSERT_EQ(testing::CountOccurrences(text, "barrier()"), 2) << text;
  // Read after write: the barrier sits between the two fetches and the loop over k.i that reads
  // the tiles. Write after read: the second one ends each step along k.o.
  const size_t fetch_b = text.find("B.shared["), first = text.find("barrier()");
  const size_t use = text.find("A.shared[", first), second = text.find("barrier()", first + 1);
  EXPECT_LT(fetch_b, first) << text;
  EXPECT_LT(first, use) << text;
  EXPECT_LT(use, second) << text;
}

// The device's reading: each block's threads run at once (gpu_interpreter.h takes them in the
// turns a missing barrier would show in). With the barriers the GEMM is right; without either
// one it reads tiles before they are fetched or after the next fetch overwrote them.
TEST(GpuShared, RunAsAGpuRunsItTheGemmIsRightWithItsBarriersAndWrongWithoutThem) {
  schedule::State s = SharedTiledGemm(32, 32, 32);  // 2 x 2 blocks of 256 threads, 2 steps along k
  const auto as_gpu = [](const PrimFunc& f, const std::vector<void*>& args) { return InterpretAsGpu(f, args); };
  EXPECT_LT(testing::InterpretedError(s, 9, as_gpu), 1e-4);

  // The same, minus the barrier after the fetch, then minus the one ending each step.
  for (int dropped : {0, 1}) {
    const auto without_one = [dropped](const PrimFunc& f, const std::vector<void*>& args) {
      absl::StatusOr<Stmt> body = InsertSharedMemoryBarriers(f, f.body);
      if (!body.ok()) return body.status();
      int seen = 0;
      struct Drop : StmtMutator {
        int target;
        int* seen;
        Stmt MutateBarrier(const Stmt& b) override { return (*seen)++ == target ? Stmt() : b; }
      } drop;
      drop.target = dropped;
      drop.seen = &seen;
      PrimFunc g = f;
      g.body = drop.MutateStmt(*body);
      return InterpretAsGpu(g, args, GpuLimits{}, /*insert_barriers=*/false);
    };
    EXPECT_GT(testing::InterpretedError(s, 9, without_one), 1e-2) << "without barrier " << dropped;
  }
}

// Register tiles inside, shared tiles around: the tiles, attached to the local accumulator's
// loop over k, are relaxed over the thread loops of the copy stage further out.
TEST(GpuShared, SharedTilesFeedingRegisterTilesSpanTheThreadsOfTheConsumerFurtherOut) {
  schedule::State s = testing::SharedRegisterTiledGemm(64, 64, 32);
  absl::StatusOr<PrimFunc> f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = PrimFuncToString(*f);
  EXPECT_NE(text.find("shared A.shared: float32[512]"), std::string::npos) << text;  // 32 rows x 16 steps
  EXPECT_NE(text.find("shared B.shared: float32[512]"), std::string::npos) << text;
  EXPECT_NE(text.find("local C.local: float32[4]"), std::string::npos) << text;
  testing::ExpectLaunches(*f, 1, {{2, 2, 1}, {16, 16, 1}, 2 * 512 * 4, 4 * 4});
  EXPECT_LT(testing::InterpretedError(s, 4), 1e-4) << text;
  const auto as_gpu = [](const PrimFunc& g, const std::vector<void*>& args) { return InterpretAsGpu(g, args); };
  EXPECT_LT(testing::InterpretedError(s, 4, as_gpu), 1e-4) << text;
}

TEST(GpuShared, RunAsAGpuRunsItABarrierOnlyHalfTheThreadsReachIsAnError) {
  // for bx @blockIdx.x(2) { for t @threadIdx.x(16) { if (t < 8) barrier(); out[bx * 16 + t] = 1 } }
  PrimFunc f = OutAndTile("half", 32, 0);
  Expr bx = te::MakeVar("bx", 0), t = te::MakeVar("t", 1);
  Stmt body = Seq({IfThenElse(te::Lt(t, Idx(8)), Barrier()), Store(0, bx * Idx(16) + t, te::FloatImm(te::DType::kFloat32, 1))});
  f.body = For(bx, Idx(2), ForKind::kThreadBinding, For(t, Idx(16), ForKind::kThreadBinding, body, ThreadAxis::kThreadX),
               ThreadAxis::kBlockX);
  std::vector<float> out(32, 0);
  absl::Status run = InterpretAsGpu(f, {out.data()}, GpuLimits{}, /*insert_barriers=*/false);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.message().find("a barrier that not every thread of the block reaches"), std::string::npos) << run;
  EXPECT_TRUE(Interpret(f, {out.data()}).ok());  // the serial reading has no barriers to miss
}

TEST(GpuShared, ASecondFetchIntoATileWaitsForTheReadsOfTheFirst) {
  // for t @threadIdx.x(8) { allocate tile { fetch 1; out[t] = tile[7 - t]; fetch 2; out[8 + t] = tile[7 - t] } }
  PrimFunc f = OutAndTile("twice", 16, 8);
  Expr t = te::MakeVar("t", 0), u = te::MakeVar("u", 1), v = te::MakeVar("v", 2);
  auto fetch = [&](const Expr& var, float value) {
    return For(var, Idx(8), ForKind::kThreadBinding, Store(1, var, te::FloatImm(te::DType::kFloat32, value)),
               ThreadAxis::kThreadX);
  };
  auto use = [&](int64_t at) { return Store(0, Idx(at) + t, te::Load(te::DType::kFloat32, 1, {Idx(7) - t})); };
  f.body = For(t, Idx(8), ForKind::kThreadBinding, Allocate(1, Seq({fetch(u, 1), use(0), fetch(v, 2), use(8)})),
               ThreadAxis::kThreadX);
  absl::StatusOr<Stmt> body = InsertSharedMemoryBarriers(f, f.body);
  ASSERT_TRUE(body.ok()) << body.status();
  // After the first fetch, before the second (its reads are done), after the second.
  EXPECT_EQ(testing::CountOccurrences(StmtToString(*body), "barrier()"), 3) << StmtToString(*body);
  std::vector<float> out(16, 0);
  ASSERT_TRUE(InterpretAsGpu(f, {out.data()}).ok());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], i < 8 ? 1.0f : 2.0f) << i;
}

TEST(GpuShared, ALaunchWithoutSharedMemoryGetsNoBarrier) {
  schedule::State s(testing::GemmDag(64, 64, 32));
  ASSERT_TRUE(s.Split(2, 0, {16}).ok());
  ASSERT_TRUE(s.Annotate(2, 0, schedule::IterAnnotation::kBlockX).ok());
  ASSERT_TRUE(s.Annotate(2, 1, schedule::IterAnnotation::kThreadX).ok());
  absl::StatusOr<PrimFunc> f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<Stmt> body = InsertSharedMemoryBarriers(*f, f->body);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_TRUE(body->same_as(f->body));
}

TEST(GpuShared, RefusesTilesBeyondTheDevicesSharedMemory) {
  absl::StatusOr<PrimFunc> f = Lower(SharedTiledGemm(64, 64, 64), "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  GpuLimits small;
  small.max_shared_memory_per_block = 1024;
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(*f, small);
  ASSERT_FALSE(launches.ok());
  EXPECT_NE(launches.status().message().find("2048 bytes of shared memory per block exceed the device's 1024"),
            std::string::npos)
      << launches.status();
}

TEST(GpuShared, RefusesABarrierThatSomeThreadsWouldNotReach) {
  // 56 rows: the last block's threads 8..15 along y skip the whole k loop, barriers included.
  schedule::State s = SharedTiledGemm(56, 64, 64);
  absl::StatusOr<PrimFunc> f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_LT(testing::InterpretedError(s, 5), 1e-4);  // the serial reading is still right
  absl::StatusOr<Stmt> body = InsertSharedMemoryBarriers(*f, f->body);
  ASSERT_FALSE(body.ok()) << StmtToString(*body);
  EXPECT_NE(body.status().message().find("would sit under a condition on a thread index"), std::string::npos)
      << body.status();
}

// Code generation aligns each shared array to 16 bytes, so the plan counts each rounded up to
// them: two arrays of 61 and 3 floats (244 and 12 bytes) take 256 + 16, not 256. Counted raw,
// a block just under the limit would pass the plan and be refused by ptxas at load time.
TEST(GpuShared, ABlocksSharedBytesCountEachArraysAlignment) {
  PrimFunc f = OutAndTile("aligned", 256, 61);
  f.buffers.push_back(Buffer{"small", te::DType::kFloat32, {3}, BufferScope::kShared});
  Expr bx = te::MakeVar("bx", 0), t = te::MakeVar("t", 1);
  const Expr one = te::FloatImm(te::DType::kFloat32, 1);
  Stmt fill = Seq({IfThenElse(te::Lt(t, Idx(61)), Store(1, t, one)), IfThenElse(te::Lt(t, Idx(3)), Store(2, t, one))});
  Stmt use = Store(0, bx * Idx(64) + t, te::Load(te::DType::kFloat32, 1, {te::Min(t, Idx(60))}));
  f.body = For(bx, Idx(4), ForKind::kThreadBinding,
               Allocate(1, Allocate(2, For(t, Idx(64), ForKind::kThreadBinding, Seq({fill, use}), ThreadAxis::kThreadX))),
               ThreadAxis::kBlockX);
  absl::StatusOr<std::vector<GpuLaunch>> plan = PlanGpuLaunches(f, GpuLimits{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ((*plan)[0].shared_bytes, 256 + 16);
  GpuLimits tight;
  tight.max_shared_memory_per_block = 260;  // the raw 256 bytes would fit
  EXPECT_FALSE(PlanGpuLaunches(f, tight).ok());
}

TEST(GpuShared, AThreadAxisBoundAgainInsideIsACooperativeFetchOrAnError) {
  // for bx @blockIdx.x(4) { for t @threadIdx.x(64) { allocate tile { [if (cond)]
  //   for u @threadIdx.x(64) { tile[u] = value }   (or out[...] = value)
  //   out[bx*64 + t] = tile[t] } } }
  PrimFunc f = OutAndTile("nested", 256, 64);
  Expr bx = te::MakeVar("bx", 0), t = te::MakeVar("t", 1), u = te::MakeVar("u", 2);
  auto launch = [&](Expr value, Expr cond, int fetch_buffer) {
    Stmt fetch = For(u, Idx(64), ForKind::kThreadBinding,
                     Store(fetch_buffer, fetch_buffer == 1 ? u : bx * Idx(64) + u, value), ThreadAxis::kThreadX);
    if (cond.defined()) fetch = IfThenElse(cond, fetch);
    Stmt use = Store(0, bx * Idx(64) + t, te::Load(te::DType::kFloat32, 1, {t}));
    Stmt body = Allocate(1, Seq({fetch, use}));
    f.body = For(bx, Idx(4), ForKind::kThreadBinding, For(t, Idx(64), ForKind::kThreadBinding, body, ThreadAxis::kThreadX),
                 ThreadAxis::kBlockX);
    return PlanGpuLaunches(f, GpuLimits{});
  };
  const Expr one = te::FloatImm(te::DType::kFloat32, 1);
  absl::StatusOr<std::vector<GpuLaunch>> fetch = launch(one, Expr(), 1);
  ASSERT_TRUE(fetch.ok()) << fetch.status();
  EXPECT_EQ((*fetch)[0].shared_bytes, 256);
  std::vector<float> out(256, 0);
  ASSERT_TRUE(InterpretAsGpu(f, {out.data()}).ok());
  EXPECT_EQ(out[255], 1.0f);

  const auto refused = [](const absl::StatusOr<std::vector<GpuLaunch>>& plan, const std::string& what) {
    ASSERT_FALSE(plan.ok()) << what;
    EXPECT_NE(plan.status().message().find(what), std::string::npos) << plan.status();
  };
  refused(launch(te::Cast(te::DType::kFloat32, t), Expr(), 1),
          "threadIdx.x is bound inside a loop already bound to it, and the inner loop uses the outer one's index");
  refused(launch(one, te::Lt(t, Idx(32)), 1), "threadIdx.x is bound again under a condition on its index");
  refused(launch(one, Expr(), 0), "threadIdx.x is bound again around a store outside shared memory");
}

TEST(GpuShared, RefusesASharedStoreThatEveryThreadOfTheBlockWouldMake) {
  // The fetch of A.shared bound to threadIdx.x only: the 16 threads along y would each store
  // the same elements of the block's tile.
  absl::StatusOr<PrimFunc> f = Lower(SharedTiledGemm(64, 64, 64, /*fetch_over_y=*/false), "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(*f, GpuLimits{});
  ASSERT_FALSE(launches.ok());
  EXPECT_NE(launches.status().message().find("a store to A.shared is not inside the loop bound to threadIdx.y"),
            std::string::npos)
      << launches.status();
}

TEST(GpuShared, RefusesMoreStaticSharedMemoryThanAKernelMayHave) {
  absl::StatusOr<PrimFunc> f = Lower(SharedTiledGemm(64, 64, 64), "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  f->buffers[f->num_args].shape = {16 * 1024};  // A.shared: 64 KiB
  GpuLimits hopper;
  hopper.max_shared_memory_per_block = 227 * 1024;
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(*f, hopper);
  ASSERT_FALSE(launches.ok());
  EXPECT_NE(launches.status().message().find("exceed the 49152 a kernel's static shared arrays may hold"),
            std::string::npos)
      << launches.status();
}

}  // namespace
}  // namespace tunefarm::tir
