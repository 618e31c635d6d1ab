// Local scope: a "local" cache stage computed at a consumer's loop, or any stage computed at a
// loop of its only reader, lives in a buffer the size of the region that loop's iterations
// touch, allocated at that loop and indexed from the region's corner (a register tile). Checked
// on the loop IR and through the interpreter.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/stmt_functor.h"
#include "compiler/tir/verify.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/test_dags.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;
using schedule::State;

float GemmError(const PrimFunc& f, int64_t m, int64_t n, int64_t k) {
  auto a = testing::RandomFloats(m * k, 1), w = testing::RandomFloats(k * n, 2), bias = testing::RandomFloats(n, 3);
  std::vector<float> out(m * n, NAN);
  absl::Status st = Interpret(f, {a.data(), w.data(), bias.data(), out.data()});
  EXPECT_TRUE(st.ok()) << st << "\n" << PrimFuncToString(f);
  return testing::MaxAbsDiff(out, testing::GemmBiasReference(a, w, bias, m, n, k));
}

const Buffer* FindBuffer(const PrimFunc& f, std::string_view name) {
  for (const Buffer& b : f.buffers)
    if (b.name == name) return &b;
  return nullptr;
}

int CountAllocates(const Stmt& s) {
  int n = 0;
  PreOrderVisit(s, [&](const Stmt& st) { n += st->kind == StmtKind::kAllocate; });
  return n;
}

// C.local computed at C's j.0 of i.0 j.0 i.1 j.1: an mr x nr accumulator tile.
State RegisterTileGemm(int64_t m, int64_t n, int64_t k, int64_t mr, int64_t nr) {
  State s(testing::GemmBiasDag(m, n, k));
  EXPECT_TRUE(s.CacheWrite(3, "local").ok());  // A B bias C.local C out
  EXPECT_TRUE(s.Split(4, 0, {mr}).ok());       // C: i.0 i.1 j
  EXPECT_TRUE(s.Split(4, 2, {nr}).ok());       // C: i.0 i.1 j.0 j.1
  EXPECT_TRUE(s.Reorder(4, {0, 2, 1, 3}).ok());
  EXPECT_TRUE(s.ComputeAt(3, 4, 1).ok());
  return s;
}

TEST(LocalScope, RegisterTileIsTheRegionOfTheAttachLoop) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{16, 24}, {13, 11}}) {  // 13 x 11: tails on both axes
    State s = RegisterTileGemm(m, n, 9, 4, 8);
    auto f = Lower(s, "gemm");
    ASSERT_TRUE(f.ok()) << f.status();
    const Buffer* tile = FindBuffer(*f, "C.local");
    ASSERT_NE(tile, nullptr);
    EXPECT_EQ(tile->scope, BufferScope::kLocal);
    EXPECT_EQ(tile->shape, (std::vector<int64_t>{4, 8}));
    EXPECT_EQ(CountAllocates(f->body), 1);
    EXPECT_LT(GemmError(*f, m, n, 9), 1e-4f) << PrimFuncToString(*f);
    // Only C (the copy the bias stage reads) is in the workspace: the tile is not.
    EXPECT_EQ(f->workspace_bytes, (m * n * 4 + 63) / 64 * 64) << PrimFuncToString(*f);
  }
}

// A tile computed below one of its own split levels: C.local, split i -> 4 x 2 like its copy C,
// is computed at C's i.1 loop, so each computation covers 2 rows and needs none of its own i.1
// loop's 4 iterations. That loop runs once (its extent clamped to what the region leaves), not
// 4 times with 3 guarded away. This is what lets a register tile sit at a GPU thread loop.
TEST(LocalScope, ATileAttachedBelowItsOwnSplitLevelRunsOnlyTheIterationsItsRegionNeeds) {
  State s(testing::GemmBiasDag(16, 8, 5));
  ASSERT_TRUE(s.CacheWrite(3, "local").ok());  // A B bias C.local C out
  ASSERT_TRUE(s.Split(3, 0, {4, 2}).ok());     // C.local: i.0 i.1 i.2 j k
  ASSERT_TRUE(s.Split(4, 0, {4, 2}).ok());     // C: i.0 i.1 i.2 j
  ASSERT_TRUE(s.ComputeAt(3, 4, 1).ok());      // at C's i.1: 2 rows of C
  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  const Buffer* tile = FindBuffer(*f, "C.local");
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ(tile->shape, (std::vector<int64_t>{2, 8}));
  int c_local_loops_of_4 = 0, guards = 0;
  PreOrderVisit(f->body, [&](const Stmt& st) { guards += st->kind == StmtKind::kIf; });
  const std::string text = PrimFuncToString(*f);
  for (size_t at = text.find("for (C.local.i0.1"); at != std::string::npos; at = text.find("for (C.local.i0.1", at + 1))
    c_local_loops_of_4 += text.substr(at, text.find('\n', at) - at).find(", 0, 4)") != std::string::npos;
  EXPECT_EQ(c_local_loops_of_4, 0) << text;
  EXPECT_EQ(guards, 0) << text;
  EXPECT_LT(GemmError(*f, 16, 8, 5), 1e-4f) << text;
}

TEST(LocalScope, TileAccumulatesAcrossAnInnerReductionSplit) {
  // C.local's own loops: i j k.0 k.1 -> k.0 i k.1 j (j vectorized): the register-tile order.
  State s = RegisterTileGemm(12, 32, 20, 3, 16);
  ASSERT_TRUE(s.Split(3, 2, {4}).ok());
  ASSERT_TRUE(s.Reorder(3, {2, 0, 3, 1}).ok());
  ASSERT_TRUE(s.Annotate(3, 3, IterAnnotation::kVectorize).ok());
  ASSERT_TRUE(s.Annotate(3, 1, IterAnnotation::kUnroll).ok());
  ASSERT_TRUE(s.Annotate(4, 0, IterAnnotation::kParallel).ok());
  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(FindBuffer(*f, "C.local")->shape, (std::vector<int64_t>{3, 16}));
  EXPECT_LT(GemmError(*f, 12, 32, 20), 1e-4f) << PrimFuncToString(*f);
}

TEST(LocalScope, EveryAttachLevelComputesTheSameProduct) {
  // C: i.0 j.0 i.1 j.1; the tile at each of the four loops is 4x8, 4x8... down to 1x1.
  const std::vector<std::vector<int64_t>> shapes = {{4, 11}, {4, 8}, {1, 8}, {1, 1}};
  for (int level = 0; level < 4; ++level) {
    State s = RegisterTileGemm(13, 11, 9, 4, 8);
    ASSERT_TRUE(s.ComputeAt(3, 4, level).ok());
    auto f = Lower(s, "gemm");
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(FindBuffer(*f, "C.local")->shape, shapes[level]) << level;
    EXPECT_LT(GemmError(*f, 13, 11, 9), 1e-4f) << level << "\n" << PrimFuncToString(*f);
  }
}

TEST(LocalScope, LocalCacheReadCopiesAPanel) {
  State s(testing::GemmBiasDag(13, 11, 9));
  ASSERT_TRUE(s.CacheRead(1, "local", {3}).ok());  // A B B.local bias C out
  ASSERT_TRUE(s.Split(4, 1, {4}).ok());            // C: i j.0 j.1 k
  ASSERT_TRUE(s.Reorder(4, {1, 0, 2, 3}).ok());    // j.0 i j.1 k
  ASSERT_TRUE(s.ComputeAt(2, 4, 0).ok());          // the 9 x 4 panel of B per j.0
  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(FindBuffer(*f, "B.local")->shape, (std::vector<int64_t>{9, 4}));
  EXPECT_LT(GemmError(*f, 13, 11, 9), 1e-4f) << PrimFuncToString(*f);
}

// A storage-align step pads a tile's rows (docs/compiler-pipeline.md, "SA"): the 4 x 8 tile
// becomes 4 rows of 9 (8 rounded up to 1 modulo 4), indexed with that stride by its writes and
// its reads; on 13 x 11 the last tile is ragged, and the padding is never read.
TEST(LocalScope, APaddedTileKeepsItsValues) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{16, 24}, {13, 11}}) {
    State s = RegisterTileGemm(m, n, 9, 4, 8);
    ASSERT_TRUE(s.StorageAlign(3, 0, 4, 1).ok());
    auto f = Lower(s, "gemm");
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(FindBuffer(*f, "C.local")->shape, (std::vector<int64_t>{4, 9}));
    EXPECT_LT(GemmError(*f, m, n, 9), 1e-4f) << PrimFuncToString(*f);
  }
  // At the root a local stage's buffer is the whole tensor, in its own layout: nothing to pad.
  State root(testing::GemmBiasDag(5, 6, 7));
  ASSERT_TRUE(root.CacheWrite(3, "local").ok());
  absl::Status refused = root.StorageAlign(3, 0, 2, 1);
  EXPECT_NE(std::string(refused.message()).find("must be computed at a loop of a reader"), std::string::npos) << refused;
}

TEST(LocalScope, AStageAttachedToItsOnlyReaderIsATileToo) {
  // Ansor's tile+fuse without a cache stage: C computed at its bias epilogue's j.0. C is read
  // only there, so it needs just that iteration's 4 x 8 region, as a cache stage would.
  for (int level : {1, 3}) {
    State s(testing::GemmBiasDag(13, 11, 9));  // A B bias C out
    ASSERT_TRUE(s.Split(4, 0, {4}).ok());
    ASSERT_TRUE(s.Split(4, 2, {8}).ok());
    ASSERT_TRUE(s.Reorder(4, {0, 2, 1, 3}).ok());
    ASSERT_TRUE(s.ComputeAt(3, 4, level).ok());
    auto f = Lower(s, "gemm");
    ASSERT_TRUE(f.ok()) << f.status();
    const Buffer* tile = FindBuffer(*f, "C");
    ASSERT_NE(tile, nullptr);
    EXPECT_EQ(tile->scope, BufferScope::kLocal);
    const std::vector<int64_t> want = level == 1 ? std::vector<int64_t>{4, 8} : std::vector<int64_t>{1, 1};
    EXPECT_EQ(tile->shape, want);
    EXPECT_EQ(f->workspace_bytes, 0) << PrimFuncToString(*f);
    EXPECT_LT(GemmError(*f, 13, 11, 9), 1e-4f) << PrimFuncToString(*f);
  }
}

TEST(LocalScope, AnAttachedStageTooLargeForTheStackStaysInTheWorkspace) {
  // Unlike a "local" cache stage (next test but one), C was not asked to be local: its 360 KB
  // region at out's outermost loop keeps it a workspace tensor, and the program stays valid.
  State s(testing::GemmBiasDag(300, 300, 2));
  ASSERT_TRUE(s.Split(4, 0, {300}).ok());  // out: i.0 (1) i.1 j
  ASSERT_TRUE(s.ComputeAt(3, 4, 0).ok());
  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(FindBuffer(*f, "C")->scope, BufferScope::kWorkspace);
  EXPECT_LT(GemmError(*f, 300, 300, 2), 1e-4f);
}

TEST(LocalScope, LocalStageAtTheRootStaysInTheWorkspace) {
  State s(testing::GemmBiasDag(5, 6, 7));
  ASSERT_TRUE(s.CacheWrite(3, "local").ok());
  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(FindBuffer(*f, "C.local")->scope, BufferScope::kWorkspace);
  EXPECT_EQ(CountAllocates(f->body), 0);
  EXPECT_LT(GemmError(*f, 5, 6, 7), 1e-4f);
}

TEST(LocalScope, ATileOverTheStackLimitIsALoweringError) {
  // The tile at C's outermost loop of an unsplit 300 x 300 GEMM is the whole 360 KB C.
  State s(testing::GemmBiasDag(300, 300, 2));
  ASSERT_TRUE(s.CacheWrite(3, "local").ok());
  ASSERT_TRUE(s.Split(4, 0, {300}).ok());  // C: i.0 (1) i.1 j
  ASSERT_TRUE(s.ComputeAt(3, 4, 0).ok());
  auto f = Lower(s, "gemm");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(std::string(f.status().message()).find("local buffer C.local needs 360000 bytes"), std::string::npos)
      << f.status();
}

TEST(LocalScope, VerifierRejectsALocalBufferUsedOutsideItsAllocate) {
  State s = RegisterTileGemm(8, 8, 4, 4, 4);
  auto f = Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  // Strip the Allocate: the accesses are now outside it.
  struct Strip : StmtMutator {
    Stmt MutateAllocate(const Stmt& st) override { return MutateStmt(st->body); }
  };
  PrimFunc broken = *f;
  broken.body = Strip().MutateStmt(f->body);
  ASSERT_EQ(CountAllocates(broken.body), 0);
  absl::Status v = Verify(broken);
  EXPECT_FALSE(v.ok());
  EXPECT_NE(std::string(v.message()).find("local buffer C.local used outside its allocate"), std::string::npos) << v;
  auto a = testing::RandomFloats(32, 1), w = testing::RandomFloats(32, 2), bias = testing::RandomFloats(8, 3);
  std::vector<float> out(64);
  EXPECT_FALSE(Interpret(broken, {a.data(), w.data(), bias.data(), out.data()}).ok());
}

}  // namespace
}  // namespace tunefarm::tir

namespace tunefarm::tir {
namespace {

// conv2d NCHW[16]c 1x32x9x10, 32 filters 3x3 pad 1 as the layout pass compiles it: x, w, pad, conv.
std::shared_ptr<const te::ComputeDag> NchwcConvDag() {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, 2, 9, 10, 16});
  auto w = b.Placeholder("w", te::DType::kFloat32, {2, 2, 3, 3, 16, 16}, true);
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  return b.Build({*ops::Conv2dNchwc(b, x, w, p)});
}

// The conv register tile of kernel_bench: conv.local (kob x owb x 16) at the copy's ow.0, split
// like the tile; padding inlined or computed once at the root.
TEST(LocalScope, NchwcConvRegisterTile) {
  for (bool pad_at_root : {false, true}) {
    for (auto [kob, owb] : {std::pair<int64_t, int64_t>{2, 5}, {1, 10}, {2, 2}}) {
      State s(NchwcConvDag());  // x w pad conv
      if (!pad_at_root) {
        ASSERT_TRUE(s.ComputeInline(2).ok());
      }
      ASSERT_TRUE(s.CacheWrite(3, "local").ok());  // x w pad conv.local conv
      ASSERT_TRUE(s.Split(4, 3, {owb}).ok());
      ASSERT_TRUE(s.Split(4, 1, {kob}).ok());
      ASSERT_TRUE(s.Reorder(4, {0, 1, 3, 4, 2, 5, 6}).ok());
      ASSERT_TRUE(s.ComputeAt(3, 4, 3).ok());
      ASSERT_TRUE(s.Split(3, 3, {owb}).ok());
      ASSERT_TRUE(s.Split(3, 1, {kob}).ok());
      ASSERT_TRUE(s.Reorder(3, {0, 1, 3, 4, 7, 8, 9, 10, 2, 5, 6}).ok());
      ASSERT_TRUE(s.Annotate(3, 10, schedule::IterAnnotation::kVectorize).ok());
      ASSERT_TRUE(s.Fuse(4, {0, 1, 2}).ok());
      ASSERT_TRUE(s.Annotate(4, 0, schedule::IterAnnotation::kParallel).ok());
      if (pad_at_root) {
        ASSERT_TRUE(s.Fuse(2, {0, 1, 2}).ok());
      }
      EXPECT_LT(testing::InterpretedError(s, 21), 1e-4) << pad_at_root << " " << kob << " " << owb << "\n"
                                                          << s.ToString();
    }
  }
}

}  // namespace
}  // namespace tunefarm::tir
