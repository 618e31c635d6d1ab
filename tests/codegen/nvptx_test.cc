// The NVPTX backend (a cuda target): PTX for bound loop nests, the launches in the metadata,
// PTX that the CUDA toolkit's ptxas assembles, and the refusals on both sides of the seam.
// No GPU runs here: the numerics of bound programs are checked through the interpreter
// (tests/tir/gpu_launch_test.cc); this checks what the device would be given.
#include <gtest/gtest.h>

#include <string>

#include "common/strings.h"
#include "compiler/codegen/codegen.h"
#include "compiler/tir/lower.h"
#include "deploy/ptx_library.h"
#include "tests/common/count_occurrences.h"
#include "tests/common/gpu_schedules.h"
#include "tests/common/ptxas.h"
#include "tests/common/test_dags.h"

namespace tunefarm::codegen {
namespace {

using schedule::IterAnnotation;
using schedule::State;

tir::PrimFunc BoundGemm() {
  State s(testing::GemmDag(64, 128, 32));
  constexpr int c = 2;
  EXPECT_TRUE(s.Split(c, 0, {8}).ok());
  EXPECT_TRUE(s.Split(c, 2, {32}).ok());
  EXPECT_TRUE(s.Reorder(c, {0, 2, 1, 3, 4}).ok());
  EXPECT_TRUE(s.Annotate(c, 0, IterAnnotation::kBlockY).ok());
  EXPECT_TRUE(s.Annotate(c, 1, IterAnnotation::kBlockX).ok());
  EXPECT_TRUE(s.Annotate(c, 2, IterAnnotation::kThreadY).ok());
  EXPECT_TRUE(s.Annotate(c, 3, IterAnnotation::kThreadX).ok());
  EXPECT_TRUE(s.Annotate(c, 4, IterAnnotation::kUnroll).ok());
  absl::StatusOr<tir::PrimFunc> f = tir::Lower(s, "gemm");
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

Target Cuda(const char* text = "cuda -arch=sm_90") {
  absl::StatusOr<Target> t = Target::Parse(text);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// The last step of a test that checked its PTX: ptxas assembles it for `arch`. Skipped only
// where the CUDA toolkit is absent (no ptxas to run): every check of the PTX itself comes
// before and runs everywhere; CI machines have the toolkit, so there it runs.
void ExpectPtxasAssembles(const std::string& ptx, const char* arch) {
  const std::string ptxas = testing::FindPtxas();
  if (ptxas.empty()) GTEST_SKIP() << testing::kNoPtxasReason;
  EXPECT_EQ(testing::AssemblePtx(ptxas, ptx, arch), "") << arch << "\n" << ptx;
}

// A register-tiled GEMM for sm_90: barriers around its shared tiles, its accumulators (`what`)
// in registers (no .local array), and PTX that ptxas assembles.
void ExpectAccumulatorsInRegisters(const State& gemm, const char* what) {
  absl::StatusOr<tir::PrimFunc> f = tir::Lower(gemm, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<std::string> ptx = BuildKernelLibrary({*f}, Cuda("cuda -arch=sm_90"));
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_NE(ptx->find("bar.sync"), std::string::npos) << *ptx;
  EXPECT_EQ(ptx->find(".local"), std::string::npos) << what << " should live in registers\n" << *ptx;
  ExpectPtxasAssembles(*ptx, "sm_90");
}

TEST(Nvptx, ABoundGemmBecomesOneKernelReadingTheBlockAndThreadIndices) {
  absl::StatusOr<std::string> ptx = BuildKernelLibrary({BoundGemm()}, Cuda());
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_NE(ptx->find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx->find(".entry gemm_k0("), std::string::npos) << *ptx;
  for (const char* reg : {"%ctaid.x", "%ctaid.y", "%tid.x", "%tid.y", ".maxntid 32, 8, 1", "fma.rn.f32"}) {
    EXPECT_NE(ptx->find(reg), std::string::npos) << reg << "\n" << *ptx;
  }
  EXPECT_NE(ptx->find("tunefarm_metadata"), std::string::npos);
  EXPECT_NE(ptx->find("tunefarm_abi_version"), std::string::npos);
}

TEST(Nvptx, TheMetadataCarriesEachEntrysLaunches) {
  absl::StatusOr<std::string> ir = EmitLlvmIr({BoundGemm()}, Cuda(), /*optimized=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  // The JSON is an LLVM string constant there, its quotes written \22.
  auto quoted = [](std::string json) {
    std::string out;
    for (char c : json) out += c == '"' ? std::string("\\22") : std::string(1, c);
    return out;
  };
  EXPECT_NE(ir->find(quoted(R"("launches":[{"kernel":"gemm_k0","grid":[4,8,1],"block":[32,8,1],"shared_bytes":0}])")),
            std::string::npos)
      << *ir;
  EXPECT_NE(ir->find(quoted(R"("target":"cuda -arch=sm_90")")), std::string::npos);
  EXPECT_NE(ir->find("@tunefarm_metadata = addrspace(1) constant"), std::string::npos);
}

TEST(Nvptx, TheRuntimeReadsTheLibrarysArchAndLaunchesFromItsText) {
  absl::StatusOr<std::string> ptx = BuildKernelLibrary({BoundGemm()}, Cuda("cuda -arch=sm_80"));
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  deploy::Result<deploy::PtxLibrary> library = deploy::ReadPtxLibrary(*ptx);
  ASSERT_TRUE(library.ok()) << library.status().ToString();
  EXPECT_EQ(library->arch, "sm_80");
  EXPECT_EQ(library->metadata.target, "cuda -arch=sm_80");
  const deploy::EntryInfo* gemm = library->metadata.FindEntry("gemm");
  ASSERT_NE(gemm, nullptr);
  ASSERT_EQ(gemm->launches.size(), 1u);
  EXPECT_EQ(gemm->launches[0].kernel, "gemm_k0");
  EXPECT_EQ(gemm->launches[0].grid[0], 4);
  EXPECT_EQ(gemm->launches[0].grid[1], 8);
  EXPECT_EQ(gemm->launches[0].block[0], 32);
  EXPECT_EQ(gemm->launches[0].block[1], 8);
  ASSERT_EQ(gemm->args.size(), 3u);
  EXPECT_EQ(gemm->args[2].role, deploy::ArgRole::kOut);
}

TEST(Nvptx, PtxasAssemblesTheKernelsForSm80AndSm90) {
  const std::string ptxas = testing::FindPtxas();
  if (ptxas.empty()) GTEST_SKIP() << testing::kNoPtxasReason;  // nothing else can check PTX (tests/common/ptxas.h)
  for (const char* arch : {"sm_80", "sm_90"}) {
    absl::StatusOr<std::string> ptx = BuildKernelLibrary({BoundGemm()}, Cuda(StrCat("cuda -arch=", arch).c_str()));
    ASSERT_TRUE(ptx.ok()) << ptx.status();
    EXPECT_EQ(testing::AssemblePtx(ptxas, *ptx, arch), "") << arch << "\n" << *ptx;
  }
}

// The classic shared-memory GEMM (tests/common/gpu_schedules.h): its tiles are static shared
// arrays of the kernel, read and written as shared memory, with the two barriers between.
TEST(Nvptx, SharedTilesBecomeSharedArraysWithBarriersAndAssemble) {
  absl::StatusOr<tir::PrimFunc> f = tir::Lower(testing::SharedTiledGemm(64, 64, 64), "sgemm");
  ASSERT_TRUE(f.ok()) << f.status();
  // A CPU target has no shared memory, and says so before anything else.
  absl::StatusOr<Target> cpu = Target::Parse("llvm -mtriple=x86_64-linux-gnu");
  ASSERT_TRUE(cpu.ok());
  absl::StatusOr<std::string> so = BuildSharedObject({*f}, *cpu);
  ASSERT_FALSE(so.ok());
  EXPECT_NE(so.status().message().find("A.shared is in shared memory, which only a GPU (cuda) target has"),
            std::string::npos)
      << so.status();

  absl::StatusOr<std::string> ptx = BuildKernelLibrary({*f}, Cuda("cuda -arch=sm_80"));
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  size_t arrays = 0;
  for (size_t at = ptx->find(".shared .align 16 .b8"); at != std::string::npos;
       at = ptx->find(".shared .align 16 .b8", at + 1)) {
    ++arrays;
    EXPECT_NE(ptx->substr(at, ptx->find('\n', at) - at).find("[1024]"), std::string::npos) << *ptx;
  }
  EXPECT_EQ(arrays, 2u) << *ptx;
  for (const char* what : {"st.shared", "ld.shared", "bar.sync"}) {
    EXPECT_NE(ptx->find(what), std::string::npos) << what << "\n" << *ptx;
  }
  ExpectPtxasAssembles(*ptx, "sm_80");
}

TEST(Nvptx, RegisterTilesFedFromSharedTilesAssemble) {
  ExpectAccumulatorsInRegisters(testing::SharedRegisterTiledGemm(64, 64, 32), "the 2 x 2 accumulator");
}

// Four virtual threads of a 2 x 2 tile each: their 16 accumulators, indexed by constants once
// the interleaved loops are unrolled, are registers too.
TEST(Nvptx, VirtualThreadsAccumulatorsStayInRegistersAndAssemble) {
  ExpectAccumulatorsInRegisters(testing::VirtualThreadGemm(64, 64, 32), "the 4 x 2 x 2 accumulators");
}

TEST(Nvptx, ACrossThreadReductionHasBarriersAndAssembles) {
  State s = testing::CrossThreadRowReduce(testing::RowReduceDag(6, 100, te::ReduceKind::kSum), 32);
  absl::StatusOr<tir::PrimFunc> f = tir::Lower(s, "rowsum");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<std::string> ptx = BuildKernelLibrary({*f}, Cuda("cuda -arch=sm_80"));
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_NE(ptx->find("bar.sync"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".shared"), std::string::npos) << *ptx;
  ExpectPtxasAssembles(*ptx, "sm_80");
}

TEST(Nvptx, ACpuTargetRefusesThreadBindingsAndAGpuTargetRefusesParallelLoops) {
  absl::StatusOr<Target> cpu = Target::Parse("llvm -mtriple=x86_64-linux-gnu");
  ASSERT_TRUE(cpu.ok());
  absl::StatusOr<std::string> so = BuildSharedObject({BoundGemm()}, *cpu);
  ASSERT_FALSE(so.ok());
  EXPECT_NE(so.status().message().find("is bound to blockIdx.y, which only a GPU (cuda) target runs"),
            std::string::npos)
      << so.status();

  State s(testing::GemmDag(64, 128, 32));
  ASSERT_TRUE(s.Annotate(2, 0, IterAnnotation::kParallel).ok());
  absl::StatusOr<tir::PrimFunc> parallel = tir::Lower(s, "gemm");
  ASSERT_TRUE(parallel.ok());
  absl::StatusOr<std::string> ptx = BuildKernelLibrary({*parallel}, Cuda());
  ASSERT_FALSE(ptx.ok());
  EXPECT_NE(ptx.status().message().find("a parallel loop, which a GPU target runs only as blockIdx/threadIdx"),
            std::string::npos)
      << ptx.status();
  EXPECT_FALSE(BuildSharedObject({BoundGemm()}, Cuda()).ok());  // a GPU library is PTX
}

TEST(Nvptx, AnArchLlvmDoesNotKnowIsANamedError) {
  absl::StatusOr<std::string> ptx = BuildKernelLibrary({BoundGemm()}, Cuda("cuda -arch=sm_12"));
  ASSERT_FALSE(ptx.ok());
  EXPECT_NE(ptx.status().message().find("does not know sm_12"), std::string::npos) << ptx.status();
}

}  // namespace
}  // namespace tunefarm::codegen

namespace tunefarm::codegen {
namespace {

// out[t*4 + v] = in[t * in_stride + v + in_offset] for 8 threads t and a vectorized loop of 4
// lanes v: a cooperative fetch's copy, by hand.
tir::PrimFunc VectorCopy(int64_t in_stride, int64_t in_offset) {
  const auto idx = [](int64_t v) { return te::IntImm(te::kIndexType, v); };
  const te::Expr t = te::MakeVar("t", 1), v = te::MakeVar("v", 2);
  tir::PrimFunc f;
  f.name = "copy";
  f.buffers.push_back({"in", te::DType::kFloat32, {8 * in_stride + in_offset + 4}, tir::BufferScope::kArg,
                       tir::ArgRole::kInput});
  f.buffers.push_back({"out", te::DType::kFloat32, {32}, tir::BufferScope::kArg, tir::ArgRole::kOutput});
  f.num_args = 2;
  const te::Expr load = te::Load(te::DType::kFloat32, 0, {t * idx(in_stride) + v + idx(in_offset)});
  f.body = tir::For(t, idx(8), tir::ForKind::kThreadBinding,
                    tir::For(v, idx(4), tir::ForKind::kVectorized, tir::Store(1, t * idx(4) + v, load)),
                    tir::ThreadAxis::kThreadX);
  return f;
}

// Each side of the copy is one 128-bit access where its index is a multiple of 4 at lane 0, a
// 64-bit one where it is a multiple of 2, and four 32-bit ones where nothing is known: the
// vector's alignment comes from the index (a misaligned ld.global.v4 is an illegal address).
TEST(Nvptx, AVectorizedCopyIsOneVectorAccessPerSideWhereItsIndexIsAligned) {
  struct Case {
    int64_t stride, offset;
    const char* ptx_load;  // the widest load expected
  };
  for (const Case& c : {Case{4, 0, "ld.global.nc.v4.f32"}, Case{8, 4, "ld.global.nc.v4.f32"}, Case{2, 0, "ld.global.nc.v2.f32"},
                        Case{4, 1, "ld.global.nc.f32"},
                        // A stride over 2^20 that is 2 modulo 4: rows alternate between 16- and
                        // 8-byte aligned, so only 64 bits at a time (a capped multiple once
                        // claimed 16 bytes here).
                        Case{(1 << 20) + 2, 0, "ld.global.nc.v2.f32"}}) {
    SCOPED_TRACE(::testing::Message() << "in[t*" << c.stride << " + v + " << c.offset << "]");
    absl::StatusOr<std::string> ptx = BuildKernelLibrary({VectorCopy(c.stride, c.offset)}, Cuda());
    ASSERT_TRUE(ptx.ok()) << ptx.status();
    EXPECT_NE(ptx->find(c.ptx_load), std::string::npos) << *ptx;
    if (std::string(c.ptx_load) != "ld.global.nc.v4.f32") {
      EXPECT_EQ(ptx->find(".v4.f32 \t{"), std::string::npos) << *ptx;
    }
    EXPECT_NE(ptx->find("st.global.v4.f32"), std::string::npos) << *ptx;  // out[t*4 + v]: always aligned
    ExpectPtxasAssembles(*ptx, "sm_90");
  }
}

// 4 lanes over rows of 6 elements, 8 apart (a tile whose row the lanes do not divide): the
// lanes straddle rows, so the loads are a gather, which LLVM lowers per element; it assembles.
TEST(Nvptx, AVectorizedCopyAcrossRowsLoadsPerElement) {
  const auto idx = [](int64_t v) { return te::IntImm(te::kIndexType, v); };
  tir::PrimFunc f = VectorCopy(4, 0);
  const te::Expr t = te::MakeVar("t", 1), v = te::MakeVar("v", 2);
  const te::Expr e = t * idx(4) + v;
  f.body = tir::For(t, idx(8), tir::ForKind::kThreadBinding,
                    tir::For(v, idx(4), tir::ForKind::kVectorized,
                             tir::Store(1, e, te::Load(te::DType::kFloat32, 0, {(e / idx(6)) * idx(8) + e % idx(6)}))),
                    tir::ThreadAxis::kThreadX);
  absl::StatusOr<std::string> ptx = BuildKernelLibrary({f}, Cuda());
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_EQ(testing::CountOccurrences(*ptx, "ld.global.f32"), 4) << *ptx;  // scalarized gather
  EXPECT_NE(ptx->find("st.global.v4.f32"), std::string::npos) << *ptx;
  ExpectPtxasAssembles(*ptx, "sm_90");
}

// VirtualThreadGemm's fetches split for 4 lanes a thread: each thread loads 4 floats of a row of
// A or B at once and stores them into the tile at once; with the rows of A's tile padded to 17
// (bank conflicts), its stores are per element, its loads still one vector.
TEST(Nvptx, AGemmsFetchesSplitFor4LanesLoad128BitsAThread) {
  for (bool padded : {false, true}) {
    SCOPED_TRACE(padded ? "A's rows padded" : "dense tiles");
    State s = testing::GemmWithSharedAndLocalStages(128, 128, 64);
    const auto ok = [](const absl::Status& step) { ASSERT_TRUE(step.ok()) << step; };
    constexpr int c = testing::kRegisterGemmC, local = testing::kRegisterGemmLocal;
    ok(s.Split(c, 0, {16, 4}));
    ok(s.Split(c, 3, {16, 4}));
    ok(s.Reorder(c, {0, 3, 1, 4, 2, 5}));
    ok(s.Fuse(c, {0, 1}));  // the blocks
    ok(s.Fuse(c, {1, 2}));  // 256 threads, each a 4 x 4 tile
    ok(s.Annotate(c, 0, IterAnnotation::kBlockX));
    ok(s.Annotate(c, 1, IterAnnotation::kThreadX));
    ok(s.ComputeAt(local, c, 1));
    ok(s.Split(local, 2, {16}));
    ok(s.Reorder(local, {2, 3, 0, 1}));
    for (int tile : {testing::kSharedGemmA, testing::kSharedGemmB}) {
      ok(s.ComputeAt(tile, local, 0));
      ok(s.Fuse(tile, {0, 1}));
      ok(s.Split(tile, 0, {256, 4}));
      ok(s.Annotate(tile, 1, IterAnnotation::kThreadX));
      ok(s.Annotate(tile, 2, IterAnnotation::kVectorize));
    }
    if (padded) ok(s.StorageAlign(testing::kSharedGemmA, 0, 2, 1));
    absl::StatusOr<tir::PrimFunc> f = tir::Lower(s, "gemm");
    ASSERT_TRUE(f.ok()) << f.status();
    absl::StatusOr<std::string> ptx = BuildKernelLibrary({*f}, Cuda());
    ASSERT_TRUE(ptx.ok()) << ptx.status();
    EXPECT_EQ(testing::CountOccurrences(*ptx, "ld.global.nc.v4.f32"), 2) << *ptx;  // a 64 x 16 and a 16 x 64 tile
    EXPECT_EQ(testing::CountOccurrences(*ptx, "ld.global.nc.f32"), 0) << *ptx;
    EXPECT_EQ(testing::CountOccurrences(*ptx, "st.shared.v4.f32"), padded ? 1 : 2) << *ptx;
    ExpectPtxasAssembles(*ptx, "sm_90");
  }
}

}  // namespace
}  // namespace tunefarm::codegen
