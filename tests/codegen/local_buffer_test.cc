// Local buffers in generated code: a register-tiled GEMM lowered from a schedule, built to a
// .so and to the JIT, run at 1 and 3 threads; its tile must end in registers (no stack array
// left after LLVM's optimizations). A local buffer allocated outside a parallel loop is shared
// with the loop's tasks through the closure.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/codegen/host_target.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/gemm_bias_run.h"
#include "tests/common/test_dags.h"

namespace tunefarm::codegen::testing {
namespace {

using schedule::IterAnnotation;
using schedule::State;

// C.local (mr x nr) at C's j.0; C: i.0 (parallel) j.0 i.1 j.1 (vectorized); C.local: k i j with
// i unrolled and j vectorized.
State TiledGemm(int64_t m, int64_t n, int64_t k, int64_t mr, int64_t nr) {
  State s(tunefarm::testing::GemmBiasDag(m, n, k));
  EXPECT_TRUE(s.CacheWrite(3, "local").ok());
  EXPECT_TRUE(s.Split(4, 0, {mr}).ok());
  EXPECT_TRUE(s.Split(4, 2, {nr}).ok());
  EXPECT_TRUE(s.Reorder(4, {0, 2, 1, 3}).ok());
  EXPECT_TRUE(s.ComputeAt(3, 4, 1).ok());
  EXPECT_TRUE(s.Reorder(3, {2, 0, 1}).ok());
  EXPECT_TRUE(s.Annotate(3, 1, IterAnnotation::kUnroll).ok());
  EXPECT_TRUE(s.Annotate(3, 2, IterAnnotation::kVectorize).ok());
  EXPECT_TRUE(s.Annotate(4, 0, IterAnnotation::kParallel).ok());
  EXPECT_TRUE(s.Annotate(4, 3, IterAnnotation::kVectorize).ok());
  return s;
}

TEST(LocalBuffer, RegisterTiledGemmMatchesTheReference) {
  for (Backend backend : {Backend::kJit, Backend::kSharedObject}) {
    for (auto [m, n] : {std::pair<int64_t, int64_t>{32, 64}, {29, 37}}) {
      auto f = tir::Lower(TiledGemm(m, n, 23, 4, 16), "gemm");
      ASSERT_TRUE(f.ok()) << f.status();
      for (int threads : {1, 3})
        EXPECT_LT(GemmBiasError(*f, backend, threads, m, n, 23), 1e-4f)
            << BackendName(backend) << " " << m << "x" << n << " at " << threads << " threads";
    }
  }
}

TEST(LocalBuffer, TheTileIsPromotedToRegisters) {
  auto f = tir::Lower(TiledGemm(32, 64, 23, 4, 16), "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  auto raw = EmitLlvmIr({*f}, HostTarget(), /*optimized=*/false);
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_NE(raw->find("alloca float"), std::string::npos) << "the tile should start as a stack slot";
  auto ir = EmitLlvmIr({*f}, HostTarget(), /*optimized=*/true);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_EQ(ir->find("alloca float"), std::string::npos) << *ir;
}

TEST(LocalBuffer, ALocalAllocatedOutsideAParallelLoopIsSharedWithItsTasks) {
  // B.local (the k x 8 panel of B per j.0) is filled at j.0; C's i loop inside it is parallel.
  for (Backend backend : {Backend::kJit, Backend::kSharedObject}) {
    State s(tunefarm::testing::GemmBiasDag(21, 19, 13));
    ASSERT_TRUE(s.CacheRead(1, "local", {3}).ok());  // A B B.local bias C out
    ASSERT_TRUE(s.Split(4, 1, {8}).ok());            // C: i j.0 j.1 k
    ASSERT_TRUE(s.Reorder(4, {1, 0, 2, 3}).ok());    // j.0 i j.1 k
    ASSERT_TRUE(s.ComputeAt(2, 4, 0).ok());
    ASSERT_TRUE(s.Annotate(4, 1, IterAnnotation::kParallel).ok());
    auto f = tir::Lower(s, "gemm");
    ASSERT_TRUE(f.ok()) << f.status();
    for (int threads : {1, 3}) EXPECT_LT(GemmBiasError(*f, backend, threads, 21, 19, 13), 1e-4f) << BackendName(backend);
  }
}

// out[i] = tmp[i] with tmp a local buffer: a malformed PrimFunc is refused by codegen with a
// message that names what is wrong.
std::string CodegenError(std::vector<tir::Buffer> buffers, tir::Stmt body) {
  tir::PrimFunc f = MakeFunc("k", std::move(buffers), 1, std::move(body));
  auto so = BuildSharedObject({f}, HostTarget());
  return so.ok() ? "" : std::string(so.status().message());
}

TEST(LocalBuffer, CodegenRefusesMalformedLocalBuffers) {
  auto local = [](std::vector<int64_t> shape) {
    tir::Buffer b = Arg("tmp", te::DType::kFloat32, std::move(shape));
    b.scope = tir::BufferScope::kLocal;
    return b;
  };
  const te::Expr i = te::MakeVar("i", 0);
  tir::Buffer out = Arg("out", te::DType::kFloat32, {4}, tir::ArgRole::kOutput);
  tir::Stmt write = tir::For(i, te::IntImm(te::kIndexType, 4), tir::ForKind::kSerial,
                             tir::Store(1, i, te::FloatImm(te::DType::kFloat32, 1)));
  // Used without its Allocate.
  EXPECT_NE(CodegenError({out, local({4})}, write).find("local buffer tmp is used outside its allocate"),
            std::string::npos);
  // An Allocate of the argument.
  EXPECT_NE(CodegenError({out, local({4})}, tir::Allocate(0, write)).find("which is not a local or shared buffer"),
            std::string::npos);
  // Over the per-buffer stack limit.
  EXPECT_NE(CodegenError({out, local({1 << 20})}, tir::Allocate(1, write)).find("over the 262144-byte limit"),
            std::string::npos);
  // Well formed, it builds.
  EXPECT_EQ(CodegenError({out, local({4})}, tir::Allocate(1, write)), "");
}

// Shared memory and barriers exist only on a GPU: a CPU build names them instead of emitting
// code that would mean something else.
TEST(LocalBuffer, CodegenForACpuRefusesSharedBuffersAndBarriers) {
  tir::Buffer out = Arg("out", te::DType::kFloat32, {4}, tir::ArgRole::kOutput);
  tir::Buffer tile = Arg("tile", te::DType::kFloat32, {4});
  tile.scope = tir::BufferScope::kShared;
  const te::Expr i = te::MakeVar("i", 0);
  tir::Stmt write = tir::For(i, te::IntImm(te::kIndexType, 4), tir::ForKind::kSerial,
                             tir::Store(0, i, te::FloatImm(te::DType::kFloat32, 1)));
  EXPECT_NE(CodegenError({out, tile}, tir::Allocate(1, write)).find(
                "buffer tile is in shared memory, which only a GPU (cuda) target has"),
            std::string::npos);
  EXPECT_NE(CodegenError({out}, tir::Seq({write, tir::Barrier()})).find("a barrier, which only a GPU (cuda) target has"),
            std::string::npos);
}

}  // namespace
}  // namespace tunefarm::codegen::testing
