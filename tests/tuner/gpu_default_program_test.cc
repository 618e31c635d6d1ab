// The GPU default program (tuner/search_space/gpu_default_program.h): the shape its fixed rules
// give a GEMM, a conv and reductions, and that it computes what the DAG means when its threads
// run as a GPU runs them (tir::InterpretAsGpu), on extents that do and do not divide. Every
// task of the shared models goes through it in gpu_model_tasks_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/nvptx_codegen.h"
#include "common/strings.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/matmul.h"
#include "compiler/tir/gpu_interpreter.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/shared_bank_conflicts.h"
#include "tests/common/gpu_schedules.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/ptxas.h"
#include "tests/common/test_dags.h"
#include "tuner/search_space/gpu_default_program.h"
#include "tuner/search_space/gpu_sketch_rules.h"

namespace tunefarm::tuner {
namespace {

using schedule::State;

codegen::Target Cuda(const char* text) { return codegen::Target::Parse(text).value(); }

struct Lowered {
  State program;
  tir::PrimFunc func;
  std::vector<tir::GpuLaunch> launches;
};

Lowered LowerDefault(std::shared_ptr<const te::ComputeDag> dag, const codegen::Target& cuda) {
  absl::StatusOr<State> p = GpuDefaultProgram(dag, SearchTarget::FromTarget(cuda));
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return {State(dag), {}, {}};
  auto f = tir::Lower(*p, "k");
  EXPECT_TRUE(f.ok()) << f.status() << "\n" << p->ToString();
  if (!f.ok()) return {*p, {}, {}};
  auto launches = tir::PlanGpuLaunches(*f, codegen::GpuLimitsOf(cuda));
  EXPECT_TRUE(launches.ok()) << launches.status();
  return {*p, *f, launches.ok() ? *launches : std::vector<tir::GpuLaunch>{}};
}

int64_t Threads(const tir::GpuLaunch& l) { return l.block[0] * l.block[1] * l.block[2]; }
int64_t Blocks(const tir::GpuLaunch& l) { return l.grid[0] * l.grid[1] * l.grid[2]; }

double GpuError(const State& program, uint64_t seed) {
  return testing::InterpretedError(program, seed, [](const tir::PrimFunc& f, const std::vector<void*>& args) {
    return tir::InterpretAsGpu(f, args);
  });
}

bool HasScope(const State& s, const std::string& scope) {
  for (const schedule::Stage& st : s.stages())
    if (st.scope == scope) return true;
  return false;
}

const schedule::Stage* StageNamed(const State& s, const std::string& name) {
  for (const schedule::Stage& st : s.stages())
    if (s.dag().tensor(st.tensor_id).name == name) return &st;
  return nullptr;
}

// The product of the extents of gpu-tile stage `local`'s levels `levels` of space axis `axis`
// (gpu_annotation.h: "iA.1" virtual threads, "iA.2" threads, "iA.3" and "iA.4" registers); 0
// when the stage or a level is missing.
int64_t Levels(const State& s, const std::string& local, int axis, std::initializer_list<int> levels) {
  const schedule::Stage* st = StageNamed(s, local);
  if (st == nullptr) return 0;
  int64_t points = 1;
  for (int level : levels) {
    const std::string name = StrCat("i", axis, ".", level);
    auto n = std::find_if(st->nodes.begin(), st->nodes.end(), [&](const schedule::IterNode& n) { return n.name == name; });
    if (n == st->nodes.end()) return 0;
    points *= n->extent;
  }
  return points;
}
// The points each thread computes along `axis`, and the block's threads along it.
int64_t RegisterTile(const State& s, const std::string& local, int axis) { return Levels(s, local, axis, {1, 3, 4}); }
int64_t ThreadsAlong(const State& s, const std::string& local, int axis) { return Levels(s, local, axis, {2}); }

// The most ways a warp replays a load of a shared buffer (tir/shared_bank_conflicts.h).
int MostSharedLoadWays(const tir::PrimFunc& f) {
  int ways = 0;
  for (const tir::SharedAccess& a : tir::SharedBankConflicts(f, f.body))
    if (!a.store) ways = std::max(ways, a.ways);
  return ways;
}

// GEMM 4096^3 on an H100-like target: 256 threads of 8x8 accumulators each (the most the
// register budget allows), 128x128 outputs a block, its tiles in shared memory. A warp's two
// rows of threads read A's tile down a column 8 rows apart: rows of 32 words put them on one
// bank (2 ways) unless A's rows are padded, which the default then does; B's are read along
// rows and stay unpadded.
TEST(GpuDefaultProgram, ABigGemmGetsLargeRegisterTilesAndSharedTiles) {
  const codegen::Target cuda = Cuda("cuda -arch=sm_90 -num-sms=132");
  Lowered l = LowerDefault(testing::GemmDag(4096, 4096, 4096), cuda);
  ASSERT_EQ(l.launches.size(), 1u);
  EXPECT_TRUE(HasScope(l.program, "shared"));
  EXPECT_TRUE(HasScope(l.program, "local"));
  EXPECT_EQ(Threads(l.launches[0]), 256);
  EXPECT_EQ(Blocks(l.launches[0]), 4096 * 4096 / (256 * 64));
  EXPECT_GT(l.launches[0].shared_bytes, 0);
  EXPECT_LE(l.launches[0].shared_bytes, tir::kMaxStaticSharedBytes);
  EXPECT_EQ(RegisterTile(l.program, "C.local", 0), 8);
  EXPECT_EQ(RegisterTile(l.program, "C.local", 1), 8);
  ASSERT_NE(StageNamed(l.program, "A.shared"), nullptr);
  ASSERT_NE(StageNamed(l.program, "B.shared"), nullptr);
  EXPECT_GT(StageNamed(l.program, "A.shared")->storage_align_factor, 0);
  EXPECT_EQ(StageNamed(l.program, "B.shared")->storage_align_factor, 0);
  EXPECT_EQ(MostSharedLoadWays(l.func), 1);
}

// ResNet-18's conv at 56x56 has too few points for 8 accumulators a thread to fill 132 SMs
// with 8 warps each: it gets 4, and 200,704 / 4 threads. The output channels index only the
// weights, the rows and columns only the input: 2 channels x 2 columns (virtual threads) load 2
// weights and 2 inputs a reduce point, where 2 rows x 2 columns would load 4 inputs and a
// weight (tile_operands.h). Along the innermost axis 14 threads (the largest divisor of what
// its register tile leaves, 56 / 2, up to 16): a warp stores runs of 14 neighbouring outputs;
// then 16 channels (a block's 32 channels share each input row), 16 x 14 = 224 threads.
TEST(GpuDefaultProgram, AConvKeepsEnoughThreadsToFillTheGpu) {
  const codegen::Target cuda = Cuda("cuda -arch=sm_90 -num-sms=132");
  Lowered l = LowerDefault(testing::ConvBiasReluDag(64, 56, 64), cuda);
  ASSERT_FALSE(l.launches.empty());
  const tir::GpuLaunch& conv = l.launches.back();
  EXPECT_GE(Threads(conv), 32);
  EXPECT_GE(Blocks(conv), 132);
  EXPECT_GE(Threads(conv) * Blocks(conv), 132 * kDefaultThreadsPerSm);
  EXPECT_EQ(Threads(conv) * Blocks(conv), 64 * 56 * 56 / 4);
  EXPECT_EQ(Threads(conv), 224);
  EXPECT_TRUE(HasScope(l.program, "shared"));
  EXPECT_EQ(RegisterTile(l.program, "conv2d.local", 1), 2);  // channels
  EXPECT_EQ(RegisterTile(l.program, "conv2d.local", 2), 1);  // rows
  EXPECT_EQ(RegisterTile(l.program, "conv2d.local", 3), 2);  // columns
  EXPECT_EQ(ThreadsAlong(l.program, "conv2d.local", 1), 16);
  EXPECT_EQ(ThreadsAlong(l.program, "conv2d.local", 3), 14);
  EXPECT_EQ(MostSharedLoadWays(l.func), 1);
  // Read conflict-free as they are: neither tile is padded.
  ASSERT_NE(StageNamed(l.program, "w.shared"), nullptr);
  ASSERT_NE(StageNamed(l.program, "conv2d.pad.shared"), nullptr);
  EXPECT_EQ(StageNamed(l.program, "w.shared")->storage_align_factor, 0);
  EXPECT_EQ(StageNamed(l.program, "conv2d.pad.shared")->storage_align_factor, 0);
}

// `program` without its storage-align steps, lowered.
tir::PrimFunc WithoutStorageAlign(const State& program) {
  State plain(program.original_dag());
  for (const schedule::Step& step : program.steps())
    if (!std::holds_alternative<schedule::StorageAlignStep>(step)) { EXPECT_TRUE(plain.Apply(step).ok()); }
  absl::StatusOr<tir::PrimFunc> f = tir::Lower(plain, "k");
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : tir::PrimFunc{};
}

struct Padding {
  int axis, factor, offset;
};

// `dag`'s default program pads shared tile `tile` so, every shared load is then 1 way (more
// without the padding), and it computes what the DAG means, run as a GPU runs it.
void ExpectPaddedAndConflictFree(std::shared_ptr<const te::ComputeDag> dag, const std::string& tile,
                                 Padding padding, uint64_t seed) {
  Lowered l = LowerDefault(dag, Cuda("cuda -arch=sm_90 -num-sms=132"));
  ASSERT_EQ(l.launches.size(), 1u);
  const schedule::Stage* st = StageNamed(l.program, tile);
  ASSERT_NE(st, nullptr) << l.program.ToString();
  EXPECT_EQ(st->storage_align_axis, padding.axis) << l.program.ToString();
  EXPECT_EQ(st->storage_align_factor, padding.factor) << l.program.ToString();
  EXPECT_EQ(st->storage_align_offset, padding.offset) << l.program.ToString();
  EXPECT_EQ(MostSharedLoadWays(l.func), 1);
  EXPECT_GT(MostSharedLoadWays(WithoutStorageAlign(l.program)), 1);
  EXPECT_LT(GpuError(l.program, seed), 1e-4);  // through the padded rows
}

// A 1x1 conv's weight tile [K, C, 1, 1] has rows of C: threads along K read down a column of
// it. Its rows are padded (storage align along axis 0, the dimension before C), which the
// bank-conflict analysis says removes the conflicts of those reads; the program without that
// step reads the weights more ways.
TEST(GpuDefaultProgram, APointwiseConvsWeightRowsArePadded) {
  ExpectPaddedAndConflictFree(testing::PointwiseConvDag(64, 16, 55), "w.shared", {0, 2, 1}, 12);
}

// A depthwise conv's input tile (MobileNetV2's 384 channels at 14x14): a warp's lanes cover a
// few rows of 16 elements, which odd rows do not separate; rows of 7 modulo 32 do.
TEST(GpuDefaultProgram, ADepthwiseConvsInputRowsArePaddedToSevenModuloThirtyTwo) {
  ExpectPaddedAndConflictFree(testing::GroupedConvDag(384, 384, 384, 14), "conv2d.pad.shared", {2, 32, 7}, 13);
}

// A batched matmul's batch axis indexes both operands: its register tile and its block cover
// rows and columns of one matrix, never several matrices (which would save no load).
TEST(GpuDefaultProgram, ABatchAxisGetsNoRegisterTile) {
  te::DagBuilder b;
  auto a = b.Placeholder("a", te::DType::kFloat32, {4, 64, 32});
  auto w = b.Placeholder("w", te::DType::kFloat32, {4, 32, 64});
  auto dag = b.Build({ops::BatchMatmul(b, a, w, {}, "bmm").value()});
  Lowered l = LowerDefault(dag, Cuda("cuda -arch=sm_80 -num-sms=4"));
  ASSERT_EQ(l.launches.size(), 1u);
  EXPECT_EQ(RegisterTile(l.program, "bmm.local", 0), 1);
  EXPECT_EQ(ThreadsAlong(l.program, "bmm.local", 0), 1);
  EXPECT_GT(RegisterTile(l.program, "bmm.local", 1) * RegisterTile(l.program, "bmm.local", 2), 1);
  EXPECT_LT(GpuError(l.program, 9), 1e-4);
}

// ResNet-18's classifier (1 x 512 -> 1000) has too few points for 256 threads per SM: one
// point a thread, in the most blocks of at least a warp (25 of 40: 1,000 = 2^3 x 5^3).
TEST(GpuDefaultProgram, FewPointsGetOnePointAThreadInTheMostBlocks) {
  Lowered l = LowerDefault(testing::GemmDag(1, 1000, 512), Cuda("cuda -arch=sm_90 -num-sms=132"));
  ASSERT_EQ(l.launches.size(), 1u);
  EXPECT_EQ(Threads(l.launches[0]), 40);
  EXPECT_EQ(Blocks(l.launches[0]), 25);
}

// Extents no block of a warp divides (primes over 256): an error, so callers fall back to one
// thread per point in guarded blocks; a device with blocks under a warp still gets tiles.
TEST(GpuDefaultProgram, RefusesLongPrimeExtentsAndFitsSmallBlocks) {
  auto primes = GpuDefaultProgram(testing::GemmDag(1009, 1013, 97), SearchTarget::FromTarget(Cuda("cuda -arch=sm_80")));
  ASSERT_FALSE(primes.ok());
  EXPECT_NE(std::string(primes.status().message()).find("no block of 32 threads or more"), std::string::npos)
      << primes.status();
  // 1,002 = 2 x 3 x 167: small factors give 6 threads, the largest divisor 167.
  Lowered large_factor = LowerDefault(testing::GemmDag(1, 1002, 64), Cuda("cuda -arch=sm_80 -num-sms=108"));
  ASSERT_EQ(large_factor.launches.size(), 1u);
  EXPECT_EQ(Threads(large_factor.launches[0]), 167);
  Lowered small = LowerDefault(testing::GemmDag(64, 64, 16), Cuda("cuda -arch=sm_80 -max-threads-per-block=16 -num-sms=1"));
  ASSERT_EQ(small.launches.size(), 1u);
  EXPECT_EQ(Threads(small.launches[0]), 16);
  EXPECT_GT(64 * 64 / Threads(small.launches[0]) / Blocks(small.launches[0]), 1);  // accumulators a thread
  EXPECT_LT(GpuError(small.program, 5), 1e-4);
}

// A grouped conv: both its operands' indices use the output channel (the input's through the
// group), so blocks span rows and columns of one channel, and their input tiles one group's
// channels. (Tiles over several channels once made lowering reserve the input channels of
// every group they touched: 185,472 bytes a block for this conv, more than a block has.) On a
// device with too little shared memory for even one reduce point a step, an error naming it,
// so callers fall back.
TEST(GpuDefaultProgram, AGroupedConvGetsBlocksOfOneChannel) {
  const auto dag = testing::GroupedConvDag(256, 256, 8, 28);
  Lowered l = LowerDefault(dag, Cuda("cuda -arch=sm_90 -num-sms=132"));
  ASSERT_EQ(l.launches.size(), 1u);
  EXPECT_EQ(RegisterTile(l.program, "conv2d.local", 1), 1);
  EXPECT_EQ(ThreadsAlong(l.program, "conv2d.local", 1), 1);
  EXPECT_EQ(Blocks(l.launches[0]) % 256, 0);  // a whole number of blocks a channel
  EXPECT_LE(l.launches[0].shared_bytes, tir::kMaxStaticSharedBytes);
  auto small = GpuDefaultProgram(dag, SearchTarget::FromTarget(Cuda("cuda -arch=sm_90 -max-shared-memory-per-block=2048")));
  ASSERT_FALSE(small.ok());
  EXPECT_NE(std::string(small.status().message()).find("shared tiles overflow the block's shared memory"),
            std::string::npos)
      << small.status();
}

// ResNet-18's residual conv (64 channels at 56x56, + bias + skip, ReLU) is one kernel: the sum
// and the ReLU are computed from the accumulators, so the conv's output never goes through
// global memory. (Its Add reads the batch at 0, which once made it two launches.) Its numerics
// are checked small in ComputesWhatTheDagMeans.
TEST(GpuDefaultProgram, AResidualConvIsOneKernel) {
  Lowered l = LowerDefault(testing::ResidualConvDag(64, 56), Cuda("cuda -arch=sm_90 -num-sms=132"));
  ASSERT_EQ(l.launches.size(), 1u) << l.program.ToString();
  EXPECT_GT(l.launches[0].shared_bytes, 0);
  const schedule::Stage* conv = StageNamed(l.program, "conv2d");  // the accumulators' copy-out
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->location, schedule::ComputeLocation::kInlined) << l.program.ToString();
}

// Fewer SMs leave room for larger register tiles.
TEST(GpuDefaultProgram, FewerSmsGiveEachThreadMoreOutputs) {
  Lowered big = LowerDefault(testing::ConvBiasReluDag(64, 56, 64), Cuda("cuda -arch=sm_90 -num-sms=132"));
  Lowered small = LowerDefault(testing::ConvBiasReluDag(64, 56, 64), Cuda("cuda -arch=sm_90 -num-sms=8"));
  ASSERT_FALSE(big.launches.empty());
  ASSERT_FALSE(small.launches.empty());
  const auto threads = [](const tir::GpuLaunch& l) { return Threads(l) * Blocks(l); };
  EXPECT_LT(threads(small.launches.back()), threads(big.launches.back()));
}

TEST(GpuDefaultProgram, IsTheSameProgramEveryTime) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda("cuda -arch=sm_80"));
  auto a = GpuDefaultProgram(testing::ConvBiasReluDag(16, 14, 32), target);
  auto b = GpuDefaultProgram(testing::ConvBiasReluDag(16, 14, 32), target);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->ToJson(), b->ToJson());
}

// A few rows of long reductions get the cross-thread sketch; many rows keep one thread a row.
TEST(GpuDefaultProgram, FewLongReductionsAreSharedByTheThreadsOfABlock) {
  // 8 SMs: one thread per row leaves the GPU nearly idle below 8 x 256 rows.
  const SearchTarget target = SearchTarget::FromTarget(Cuda("cuda -arch=sm_80 -num-sms=8"));
  auto few = GpuDefaultProgram(testing::RowReduceDag(8, 1024, te::ReduceKind::kSum), target);
  auto many = GpuDefaultProgram(testing::RowReduceDag(4096, 32, te::ReduceKind::kSum), target);
  ASSERT_TRUE(few.ok()) << few.status();
  ASSERT_TRUE(many.ok()) << many.status();
  auto cross = [](const State& s) {
    int n = 0;
    for (int i = 0; i < static_cast<int>(s.stages().size()); ++i) n += IsCrossThreadReduction(s, i);
    return n;
  };
  EXPECT_EQ(cross(*few), 1);
  EXPECT_EQ(cross(*many), 0);
  EXPECT_LT(GpuError(*few, 3), 1e-3);
  EXPECT_LT(GpuError(*many, 4), 1e-3);
}

// Extents that divide well, that do not (primes), and convs with their padding, run as a GPU
// runs them: the default program computes what the DAG means. One SM: the largest tiles
// (64 accumulators, 8 virtual threads) on the 128 x 128 GEMM.
TEST(GpuDefaultProgram, ComputesWhatTheDagMeans) {
  const codegen::Target cuda = Cuda("cuda -arch=sm_80 -num-sms=1");
  const std::vector<std::pair<std::string, std::shared_ptr<const te::ComputeDag>>> dags = {
      {"gemm 128x128x64", testing::GemmDag(128, 128, 64)},
      {"gemm 64x48x32", testing::GemmDag(64, 48, 32)},
      {"gemm 37x41x13", testing::GemmDag(37, 41, 13)},
      {"gemm+bias 24x20x18", testing::GemmBiasDag(24, 20, 18)},
      {"conv 8x10x10", testing::ConvBiasReluDag(8, 10, 6)},
      {"conv 3x7x7", testing::ConvBiasReluDag(3, 7, 5)},
      {"grouped conv 8x6x6 in 4 groups", testing::GroupedConvDag(8, 8, 4, 6)},
      {"residual conv 8x8x8", testing::ResidualConvDag(8, 8)},
  };
  std::vector<tir::PrimFunc> funcs;
  for (const auto& [name, dag] : dags) {
    Lowered l = LowerDefault(dag, cuda);
    ASSERT_FALSE(l.launches.empty()) << name;
    if (name == "gemm 128x128x64") {  // one block of 256 threads of 64 accumulators
      EXPECT_EQ(Threads(l.launches[0]), 256);
      EXPECT_EQ(Blocks(l.launches[0]), 1);
    }
    EXPECT_LT(GpuError(l.program, 7), 1e-4) << name << "\n" << l.program.ToString();
    l.func.name = "k" + std::to_string(funcs.size());
    funcs.push_back(l.func);
  }
  absl::StatusOr<std::string> ptx = codegen::BuildKernelLibrary(funcs, cuda);
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  const std::string ptxas = testing::FindPtxas();
  // Skipped only where the CUDA toolkit's ptxas is absent (the rule: CI has it): only the
  // assembly step, after the lowering, launch and numerics checks above ran (tests/common/ptxas.h).
  if (ptxas.empty()) GTEST_SKIP() << testing::kNoPtxasReason;
  EXPECT_EQ(testing::AssemblePtx(ptxas, *ptx, "sm_80"), "");
}

TEST(GpuDefaultProgram, RefusesACpuTarget) {
  auto p = GpuDefaultProgram(testing::GemmDag(8, 8, 8), SearchTarget{});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(std::string(p.status().message()).find("cuda target"), std::string::npos);
}

}  // namespace
}  // namespace tunefarm::tuner
