// GPU schedules that more than one test builds.
#pragma once

#include <cstdint>

#include <gtest/gtest.h>

#include "compiler/schedule/state.h"
#include "tests/common/test_dags.h"

namespace tunefarm::testing {

// The stages of SharedTiledGemm: A, A.shared, B, B.shared, C.
inline constexpr int kSharedGemmA = 1, kSharedGemmB = 3, kSharedGemmC = 4;

// C[m, n] = A[m, k] B[k, n] the classic CUDA way: blocks of 16 x 16 threads, one output each;
// for each step of 16 along k the block fetches a 16 x 16 tile of A and of B into shared memory
// together (each thread one element of each: the tile's two axes fused, then split over
// threadIdx.y and threadIdx.x), and every thread reads its row and column of both tiles. With
// m or n not a multiple of 16 the thread loops get a guarded tail. `fetch_over_y` false leaves
// the fetches' middle loop serial (every thread along y would fetch the same elements).
inline schedule::State SharedTiledGemm(int64_t m, int64_t n, int64_t k, bool fetch_over_y = true) {
  using schedule::IterAnnotation;
  schedule::State s(GemmDag(m, n, k));
  const auto ok = [](const absl::Status& step) { EXPECT_TRUE(step.ok()) << step; };
  ok(s.CacheRead(0, "shared", {2}));      // A.shared reads A for C
  ok(s.CacheRead(2, "shared", {3}));      // B.shared reads B for C (stage 3 until then)
  constexpr int c = kSharedGemmC;
  ok(s.Split(c, 0, {16}));                // i.o i.i j k
  ok(s.Split(c, 2, {16}));                // i.o i.i j.o j.i k
  ok(s.Reorder(c, {0, 2, 1, 3, 4}));      // i.o j.o i.i j.i k
  ok(s.Split(c, 4, {16}));                // i.o j.o i.i j.i k.o k.i
  ok(s.Annotate(c, 0, IterAnnotation::kBlockY));
  ok(s.Annotate(c, 1, IterAnnotation::kBlockX));
  ok(s.Annotate(c, 2, IterAnnotation::kThreadY));
  ok(s.Annotate(c, 3, IterAnnotation::kThreadX));
  for (int tile : {kSharedGemmA, kSharedGemmB}) {
    ok(s.ComputeAt(tile, c, 4));          // at k.o
    ok(s.Fuse(tile, {0, 1}));
    ok(s.Split(tile, 0, {16, 16}));       // (fused / 256) x 16 x 16
    if (fetch_over_y) ok(s.Annotate(tile, 1, IterAnnotation::kThreadY));
    ok(s.Annotate(tile, 2, IterAnnotation::kThreadX));
  }
  return s;
}

// The stages of SharedRegisterTiledGemm: A, A.shared, B, B.shared, C.local, C.
inline constexpr int kRegisterGemmLocal = 4, kRegisterGemmC = 5;

// A GEMM with shared copies of A and B and a local accumulator C.local (stages as above).
inline schedule::State GemmWithSharedAndLocalStages(int64_t m, int64_t n, int64_t k) {
  schedule::State s(GemmDag(m, n, k));
  EXPECT_TRUE(s.CacheRead(0, "shared", {2}).ok());
  EXPECT_TRUE(s.CacheRead(2, "shared", {3}).ok());
  EXPECT_TRUE(s.CacheWrite(4, "local").ok());  // C.local computes, C copies
  return s;
}

// C.local's loops (i j k) become k.o k.i i j, steps of 16 along k; both shared tiles are
// computed at k.o and fetched by the block's threads_y x threads_x threads together.
inline void FetchTilesPerStepOfK(schedule::State* s, int64_t threads_y, int64_t threads_x) {
  using schedule::IterAnnotation;
  const auto ok = [](const absl::Status& step) { EXPECT_TRUE(step.ok()) << step; };
  constexpr int local = kRegisterGemmLocal;
  ok(s->Split(local, 2, {16}));                // i j k.o k.i
  ok(s->Reorder(local, {2, 3, 0, 1}));         // k.o k.i i j
  for (int tile : {kSharedGemmA, kSharedGemmB}) {
    ok(s->ComputeAt(tile, local, 0));          // at k.o
    ok(s->Fuse(tile, {0, 1}));
    ok(s->Split(tile, 0, {threads_y, threads_x}));
    ok(s->Annotate(tile, 1, IterAnnotation::kThreadY));
    ok(s->Annotate(tile, 2, IterAnnotation::kThreadX));
  }
}

// As SharedTiledGemm, with each of the 16 x 16 threads computing a 2 x 2 tile of C in a local
// accumulator (C.local, attached inside the thread loops of C's copy), and the shared tiles
// attached to C.local's outer loop over k: 32 x 16 of A and 16 x 32 of B per step, which the
// 256 threads fetch two elements each.
inline schedule::State SharedRegisterTiledGemm(int64_t m, int64_t n, int64_t k) {
  using schedule::IterAnnotation;
  schedule::State s = GemmWithSharedAndLocalStages(m, n, k);
  const auto ok = [](const absl::Status& step) { EXPECT_TRUE(step.ok()) << step; };
  constexpr int c = kRegisterGemmC, local = kRegisterGemmLocal;
  ok(s.Split(c, 0, {16, 2}));                 // i.0 i.1 i.2 j
  ok(s.Split(c, 3, {16, 2}));                 // i.0 i.1 i.2 j.0 j.1 j.2
  ok(s.Reorder(c, {0, 3, 1, 4, 2, 5}));       // i.0 j.0 i.1 j.1 i.2 j.2
  ok(s.Annotate(c, 0, IterAnnotation::kBlockY));
  ok(s.Annotate(c, 1, IterAnnotation::kBlockX));
  ok(s.Annotate(c, 2, IterAnnotation::kThreadY));
  ok(s.Annotate(c, 3, IterAnnotation::kThreadX));
  ok(s.ComputeAt(local, c, 3));               // a 2 x 2 tile per thread
  FetchTilesPerStepOfK(&s, 16, 16);
  return s;
}

// The stages of VirtualThreadGemm: as SharedRegisterTiledGemm's.
inline constexpr int kVThreadGemmLocal = kRegisterGemmLocal, kVThreadGemmC = kRegisterGemmC;

// SharedRegisterTiledGemm with Ansor's virtual-thread level: each axis of C is split
// block x vthread x thread x register (?, 2, 8, 2); the two vthread loops are fused (4 virtual
// threads), between the blocks and the 8 x 8 threads. Each thread computes four 2 x 2 tiles of
// C, 16 rows and 16 columns apart, so the threads of a warp read neighbouring elements of the
// shared tiles. C.local, attached at the thread loops, is one 2 x 2 tile; injection gives it a
// copy per virtual thread. The 32 x 16 shared tiles are fetched by the 64 threads, 8 each.
inline schedule::State VirtualThreadGemm(int64_t m, int64_t n, int64_t k) {
  using schedule::IterAnnotation;
  schedule::State s = GemmWithSharedAndLocalStages(m, n, k);
  const auto ok = [](const absl::Status& step) { EXPECT_TRUE(step.ok()) << step; };
  constexpr int c = kVThreadGemmC, local = kVThreadGemmLocal;
  ok(s.Split(c, 0, {2, 8, 2}));                   // i.0 i.1 i.2 i.3 j
  ok(s.Split(c, 4, {2, 8, 2}));                   // i.0 i.1 i.2 i.3 j.0 j.1 j.2 j.3
  ok(s.Reorder(c, {0, 4, 1, 5, 2, 6, 3, 7}));     // i.0 j.0 i.1 j.1 i.2 j.2 i.3 j.3
  ok(s.Fuse(c, {2, 3}));                          // i.0 j.0 v i.2 j.2 i.3 j.3
  ok(s.Annotate(c, 0, IterAnnotation::kBlockY));
  ok(s.Annotate(c, 1, IterAnnotation::kBlockX));
  ok(s.Annotate(c, 2, IterAnnotation::kVThread));
  ok(s.Annotate(c, 3, IterAnnotation::kThreadY));
  ok(s.Annotate(c, 4, IterAnnotation::kThreadX));
  ok(s.Annotate(c, 5, IterAnnotation::kUnroll));
  ok(s.Annotate(c, 6, IterAnnotation::kUnroll));
  ok(s.ComputeAt(local, c, 4));                   // one 2 x 2 tile per virtual thread
  FetchTilesPerStepOfK(&s, 8, 8);
  ok(s.Annotate(local, 2, IterAnnotation::kUnroll));  // the tile's i and j
  ok(s.Annotate(local, 3, IterAnnotation::kUnroll));
  return s;
}

// rows x cols -> rows: a reduction (sum or max) of each row's squares, then + 1 in a stage of its
// own (stages: x, r, y).
inline std::shared_ptr<const te::ComputeDag> RowReduceDag(int64_t rows, int64_t cols, te::ReduceKind kind) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {rows, cols});
  auto r = b.Reduce("r", kind, {rows}, {cols}, [&](const te::DagBuilder::Axes& i, const te::DagBuilder::Axes& k) {
    return x(i[0], k[0]) * x(i[0], k[0]);
  });
  auto y = b.Compute("y", {rows}, [&](const te::DagBuilder::Axes& i) { return r(i) + te::Const(te::DType::kFloat32, 1); });
  return b.Build({y});
}

// RowReduceDag's reduction as a cross-thread reduction: the row loop on blockIdx.x, the columns
// split by `threads` with the inner part on threadIdx.x; y bound two rows to a block.
inline schedule::State CrossThreadRowReduce(std::shared_ptr<const te::ComputeDag> dag, int64_t threads) {
  using schedule::IterAnnotation;
  constexpr int r = 1, y = 2;
  schedule::State s(std::move(dag));
  const auto ok = [](const absl::Status& step) { EXPECT_TRUE(step.ok()) << step; };
  ok(s.Split(r, 1, {threads}));                          // row, col.o, col.i
  ok(s.Annotate(r, 0, IterAnnotation::kBlockX));
  ok(s.Annotate(r, 2, IterAnnotation::kThreadX));
  ok(s.Split(y, 0, {2}));
  ok(s.Annotate(y, 0, IterAnnotation::kBlockX));
  ok(s.Annotate(y, 1, IterAnnotation::kThreadX));
  return s;
}

}  // namespace tunefarm::testing
