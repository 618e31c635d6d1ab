// Default schedules (compiler/schedule/default_rules.h) on every kind of DAG: correct through
// the interpreter and a .so at 1 and 3 threads, and shaped as the rules promise.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/layout.h"
#include "compiler/ops/pad.h"
#include "compiler/ops/transform.h"
#include "compiler/ops/winograd.h"
#include "compiler/schedule/default_rules.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/common/dag_evaluator.h"
#include "tests/common/test_dags.h"
#include "tests/property/property_cases.h"

namespace tunefarm::testing {
namespace {

using schedule::ApplyDefaultSchedule;
using schedule::ComputeLocation;
using schedule::IterAnnotation;
using schedule::RuleContext;

// Runs the default schedule of `dag` through the interpreter and a .so; returns the max error
// against the plain evaluation.
double DefaultScheduleError(std::shared_ptr<const te::ComputeDag> dag, schedule::State* out = nullptr,
                            int lanes = 8, int registers = 0) {
  auto state = ApplyDefaultSchedule(dag, RuleContext{lanes, 2, registers});
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return 1e30;
  if (out) *out = *state;
  auto f = tir::Lower(*state, "kernel");
  EXPECT_TRUE(f.ok()) << f.status() << "\n" << state->ToString();
  if (!f.ok()) return 1e30;
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<double>> inputs64;
  for (size_t i = 0; i < dag->inputs().size(); ++i) {
    inputs.push_back(RandomFloats(dag->tensor(dag->inputs()[i]).NumElements(), 40 + i));
    inputs64.emplace_back(inputs.back().begin(), inputs.back().end());
  }
  auto ref = DagEvaluator(*dag).Run(inputs64);
  double worst = 0;
  auto runner = codegen::testing::KernelRunner::Create({*f}, codegen::testing::Backend::kSharedObject);
  for (int path = 0; path < 3; ++path) {  // interpreter, .so at 1 thread, .so at 3 threads
    std::vector<codegen::testing::Array<float>> arrays;
    for (auto& v : inputs) {
      arrays.emplace_back(v.size());
      std::copy(v.begin(), v.end(), arrays.back().data());
    }
    for (int id : dag->outputs()) {
      arrays.emplace_back(dag->tensor(id).NumElements());
      std::fill(arrays.back().data(), arrays.back().data() + arrays.back().size, NAN);
    }
    std::vector<void*> args;
    for (auto& a : arrays) args.push_back(a.data());
    if (path == 0) {
      EXPECT_TRUE(tir::Interpret(*f, args).ok());
    } else {
      EXPECT_EQ(runner->Run("kernel", args, path == 1 ? 1 : 3), 0);
    }
    for (size_t o = 0; o < dag->outputs().size(); ++o) {
      auto& got = arrays[inputs.size() + o];
      for (size_t i = 0; i < got.size; ++i) {
        double err = std::fabs(got.data()[i] - ref[o][i]) / (1 + std::fabs(ref[o][i]));
        worst = std::max(worst, std::isnan(err) ? 1e30 : err);
      }
    }
  }
  return worst;
}

TEST(DefaultRules, EveryPropertyDagIsCorrect) {
  std::mt19937_64 rng(5);
  for (const PropertyCase& c : PropertyCases()) {
    for (int trial = 0; trial < 3; ++trial) {
      auto dag = c.make(rng);
      schedule::State s(dag);
      EXPECT_LT(DefaultScheduleError(dag, &s), 1e-4) << c.name << "\n" << s.ToString();
    }
  }
}

TEST(DefaultRules, ConvBiasReluIsTiledWithItsEpilogue) {
  std::mt19937_64 rng(1);
  auto dag = PropertyCases()[1].make(rng);  // conv2d + bias + relu
  std::vector<std::string> applied;
  auto s = ApplyDefaultSchedule(dag, RuleContext{8, 2}, &applied);
  ASSERT_TRUE(s.ok()) << s.status();
  // 0 x, 1 w, 2 bias, 3 pad (if padded), conv, bias_add, relu
  int out = dag->outputs()[0];
  int conv = out - 2;
  EXPECT_EQ(s->stage(out - 1).location, ComputeLocation::kInlined);  // bias add
  EXPECT_EQ(s->stage(conv).location, ComputeLocation::kAt);
  EXPECT_EQ(s->stage(conv).attach_stage, out);
  const auto& conv_iters = s->stage(conv).iters;
  EXPECT_EQ(conv_iters.back().annotation, IterAnnotation::kVectorize);
  std::string joined;
  for (const auto& a : applied) joined += a + "\n";
  EXPECT_NE(joined.find("tile+epilogue"), std::string::npos) << joined;
}

// NCHW[x]c conv + bias + relu as the layout pass emits it: [1, C/x, H, W, x] data and packed
// weight [K/x, C/x, 3, 3, x, x].
std::shared_ptr<const te::ComputeDag> ConvNchwcBiasReluDag(int64_t c, int64_t k, int64_t hw, int64_t x) {
  te::DagBuilder b;
  auto data = b.Placeholder("x", te::DType::kFloat32, {1, c / x, hw, hw, x});
  auto w = b.Placeholder("w", te::DType::kFloat32, {k / x, c / x, 3, 3, x, x}, true);
  auto bias = b.Placeholder("bias", te::DType::kFloat32, {k / x, 1, 1, x}, true);
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto conv = *ops::Conv2dNchwc(b, data, w, p, "conv");
  using Axes = te::DagBuilder::Axes;
  auto biased = b.Compute("bias_add", conv.shape, [&](const Axes& i) { return conv(i) + bias(i[1], 0, 0, i[4]); });
  auto relu = b.Compute("relu", conv.shape, [&](const Axes& i) { return te::Max(biased(i), te::Const(te::DType::kFloat32, 0)); });
  return b.Build({relu});
}

// The channel block is the vector; two output-channel blocks times a divisor of OW form the
// unrolled register tile; the conv is computed per output tile.
TEST(DefaultRules, NchwcConvTilesChannelBlocksAndOutputColumns) {
  for (int lanes : {8, 16}) {
    auto dag = ConvNchwcBiasReluDag(2 * lanes, 4 * lanes, 14, lanes);
    auto s = ApplyDefaultSchedule(dag, RuleContext{lanes, 2});
    ASSERT_TRUE(s.ok()) << s.status();
    int out = dag->outputs()[0], conv = out - 2;
    EXPECT_EQ(s->stage(conv).location, ComputeLocation::kAt);
    const auto& it = s->stage(conv).iters;
    ASSERT_GE(it.size(), 3u);
    EXPECT_EQ(it.back().annotation, IterAnnotation::kVectorize);
    EXPECT_EQ(s->stage(conv).node_of(static_cast<int>(it.size()) - 1).extent, lanes);
    EXPECT_EQ(it[it.size() - 2].annotation, IterAnnotation::kUnroll);
    EXPECT_EQ(it[it.size() - 3].annotation, IterAnnotation::kUnroll);
    int64_t rows = s->stage(conv).node_of(static_cast<int>(it.size()) - 2).extent;
    int64_t cols = s->stage(conv).node_of(static_cast<int>(it.size()) - 3).extent;
    EXPECT_GE(cols, 2) << s->ToString();
    EXPECT_EQ(14 % rows, 0) << s->ToString();
    EXPECT_LE(cols * (rows + 1) + 1, lanes >= 16 ? 32 : 16) << s->ToString();
    if (lanes == 16) {  // two channel blocks x 7 columns: at most 16 accumulators (2x14 spilled)
      EXPECT_EQ(cols, 2) << s->ToString();
      EXPECT_EQ(rows, 7) << s->ToString();
    }
    EXPECT_LT(DefaultScheduleError(dag, nullptr, lanes), 1e-4) << s->ToString();
  }
}

// The register file comes from the target: NEON's 4-lane vectors with its 32 registers hold a
// 2 x 7 tile of accumulators, where an x86 target with 4 lanes (SSE, 16 registers) holds 4 x 2.
TEST(DefaultRules, TheRegisterTileFillsTheTargetsRegisterFile) {
  auto dag = ConvNchwcBiasReluDag(8, 16, 14, 4);
  auto tile = [&](int registers) {
    auto s = ApplyDefaultSchedule(dag, RuleContext{4, 2, registers});
    EXPECT_TRUE(s.ok()) << s.status();
    const int conv = dag->outputs()[0] - 2;
    const auto& it = s->stage(conv).iters;
    const int n = static_cast<int>(it.size());
    EXPECT_LT(DefaultScheduleError(dag, nullptr, 4, registers), 1e-4);  // the same tile, run
    return std::make_pair(s->stage(conv).node_of(n - 3).extent, s->stage(conv).node_of(n - 2).extent);
  };
  const auto [sse_cols, sse_rows] = tile(16);
  const auto [neon_cols, neon_rows] = tile(32);
  EXPECT_LE(sse_cols * (sse_rows + 1) + 1, 16);
  EXPECT_LE(neon_cols * (neon_rows + 1) + 1, 32);
  EXPECT_EQ(neon_cols * neon_rows, 14);
  EXPECT_GT(neon_cols * neon_rows, sse_cols * sse_rows);
}

// The padding of a conv that does much work per padded element and reads whole vectors of
// channels is computed once at the root; inlined, its bounds test ran on every broadcast of the
// tile (SqueezeNet's 3x3 expand convs 1.3-2.3x slower). Few output channels (little work per
// element) or a channel block narrower than a vector (the stem) keep it inlined.
TEST(DefaultRules, PaddingOfAChannelRichConvIsComputedOnceAtTheRoot) {
  struct Case {
    int64_t c, k, x;
    bool at_root;
  };
  for (Case cs : {Case{32, 64, 16, true}, Case{16, 64, 16, true}, Case{16, 16, 16, false}, Case{3, 48, 3, false}}) {
    auto dag = ConvNchwcBiasReluDag(cs.c, cs.k, 14, cs.x);
    auto s = ApplyDefaultSchedule(dag, RuleContext{16, 2});
    ASSERT_TRUE(s.ok()) << s.status();
    int pad = -1;
    for (int t = 0; t < dag->num_tensors(); ++t)
      if (dag->tensor(t).name.find("pad") != std::string::npos) pad = t;
    ASSERT_GE(pad, 0);
    EXPECT_EQ(s->stage(pad).location, cs.at_root ? ComputeLocation::kRoot : ComputeLocation::kInlined)
        << "C=" << cs.c << " K=" << cs.k << " x=" << cs.x << "\n" << s->ToString();
    EXPECT_LT(DefaultScheduleError(dag, nullptr, 16), 1e-4) << s->ToString();
  }
}

// Injective stages vectorize their innermost axis alone, so lanes read and write contiguous
// memory (fusing first made every lane's index a div/mod: gathers, 10-20x slower).
TEST(DefaultRules, ElementwiseStagesVectorizeTheInnermostAxisAlone) {
  struct Case {
    std::string name;
    std::shared_ptr<const te::ComputeDag> dag;
    int64_t vector_extent;
    bool parallel;
  };
  std::vector<Case> cases;
  {
    te::DagBuilder b;
    auto x = b.Placeholder("x", te::DType::kFloat32, {1, 4, 30, 30, 16});
    auto y = b.Placeholder("y", te::DType::kFloat32, {1, 3, 30, 30, 16});
    cases.push_back({"nchw16c concat", b.Build({ops::OrDie(ops::Concat(b, {x, y}, 1))}), 16, true});
  }
  {
    te::DagBuilder b;
    auto x = b.Placeholder("x", te::DType::kFloat32, {1, 3, 20, 21});
    cases.push_back({"to nchw3c", b.Build({ops::OrDie(ops::NchwToNchwc(b, x, 3))}), 3, false});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    schedule::State state(c.dag);
    EXPECT_LT(DefaultScheduleError(c.dag, &state, 16), 1e-6);
    const int out = c.dag->outputs()[0];
    const auto& it = state.stage(out).iters;
    ASSERT_GE(it.size(), 2u) << state.ToString();
    EXPECT_EQ(it.back().annotation, IterAnnotation::kVectorize) << state.ToString();
    EXPECT_EQ(state.stage(out).node_of(static_cast<int>(it.size()) - 1).extent, c.vector_extent) << state.ToString();
    EXPECT_EQ(it.front().annotation == IterAnnotation::kParallel, c.parallel) << state.ToString();
  }
}

// A Winograd transform reads a whole tile per point: its tile element axes stay serial inside
// the parallel loop and are unrolled, so that the select chains over them fold.
TEST(DefaultRules, ATileTransformKeepsItsSmallInnerAxesForUnrolling) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, 2, 10, 10, 16});
  auto dag = b.Build({ops::OrDie(ops::WinogradDataPack(b, x, ops::WinogradParams{4, {1, 1, 1, 1}}, "pack"))});
  schedule::State state(dag);
  EXPECT_LT(DefaultScheduleError(dag, &state, 16), 1e-5);
  const int out = dag->outputs()[0];
  const auto& it = state.stage(out).iters;
  // C/x (2) and the tiles (9) stay two loops: the stage is too small to run in parallel, so
  // fusing them would only add divisions. Then e (6), nu (6), lanes (16) vectorized.
  ASSERT_EQ(it.size(), 5u) << state.ToString();
  EXPECT_EQ(state.stage(out).node_of(0).extent, 2);
  EXPECT_EQ(state.stage(out).node_of(1).extent, 9);
  EXPECT_EQ(state.stage(out).node_of(2).extent, 6);
  EXPECT_EQ(state.stage(out).node_of(3).extent, 6);
  EXPECT_NE(it[0].annotation, IterAnnotation::kParallel) << state.ToString();
  EXPECT_EQ(it[4].annotation, IterAnnotation::kVectorize) << state.ToString();
  EXPECT_GT(state.stage(out).auto_unroll_max_step, 0) << state.ToString();
}

// An elementwise stage fuses only as many outer loops as its threads need (8 tasks each), so
// the loops inside stay plain loops instead of divisions of the fused index per iteration.
TEST(DefaultRules, ElementwiseStagesFuseOnlyTheOuterLoopsTheirThreadsNeed) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, 4, 56, 56, 16});
  auto dag = b.Build({ops::OrDie(ops::Pad(b, x, ops::PadParams{ops::PadMode::kConstant, {0, 0, 1, 1, 0, 0, 0, 1, 1, 0}, 0.0}))});
  schedule::State state(dag);
  EXPECT_LT(DefaultScheduleError(dag, &state, 16), 1e-6);  // 2 threads
  const int out = dag->outputs()[0];
  const auto& it = state.stage(out).iters;
  ASSERT_EQ(it.size(), 3u) << state.ToString();
  EXPECT_EQ(state.stage(out).node_of(0).extent, 4 * 58);  // n, C/16 and rows: 232 >= 2 x 8 tasks
  EXPECT_EQ(it[0].annotation, IterAnnotation::kParallel) << state.ToString();
  EXPECT_EQ(state.stage(out).node_of(1).extent, 58);
  EXPECT_EQ(it[1].annotation, IterAnnotation::kNone) << state.ToString();
  EXPECT_EQ(it[2].annotation, IterAnnotation::kVectorize) << state.ToString();
}

// A GEMM's register tile (rows of A x vectors of B) fits the vector registers with the row of
// B's vectors and a broadcast of A, where 8 rows x 4 vectors (32 accumulators) spilled; of the
// widths that do, the one with the most FMAs per load. Its column strips run outside its row
// tiles (B's strip stays in cache across them).
TEST(DefaultRules, AGemmTileFitsTheRegisterFile) {
  auto tile = [&](std::shared_ptr<const te::ComputeDag> dag, int lanes, int registers) {
    schedule::State s(dag);
    EXPECT_LT(DefaultScheduleError(dag, &s, lanes, registers), 1e-4);
    const int gemm = dag->outputs()[0] - 1;
    const auto& it = s.stage(gemm).iters;
    const int n = static_cast<int>(it.size());
    EXPECT_EQ(it[n - 1].annotation, IterAnnotation::kVectorize) << s.ToString();
    return std::make_tuple(s.stage(gemm).node_of(n - 2).extent, s.stage(gemm).node_of(n - 1).extent, s);
  };
  const auto [avx512_rows, avx512_width, avx512] = tile(GemmBiasDag(128, 768, 64), 16, 32);
  EXPECT_EQ(avx512_rows, 8);
  EXPECT_EQ(avx512_width, 48);  // 24 accumulators; 8 x 64 would be 32
  const schedule::Stage& out = avx512.stage(avx512.dag().outputs()[0]);
  EXPECT_EQ(out.node_of(0).name.rfind("i1.0@i0.0", 0), 0u) << avx512.ToString();
  EXPECT_EQ(out.iters[0].annotation, IterAnnotation::kParallel) << avx512.ToString();

  const auto [avx2_rows, avx2_width, avx2] = tile(GemmBiasDag(128, 768, 64), 8, 16);
  const int64_t avx2_vectors = avx2_width / 8;
  EXPECT_LE(avx2_rows * avx2_vectors + avx2_vectors + 1, 16);
  EXPECT_EQ(avx2_rows * avx2_vectors, 12);  // 4 x 3: 12 FMAs for 7 loads

  // 197 rows (ViT's tokens), prime: 4 rows a tile, the last one guarded, not 1.
  const auto [prime_rows, prime_width, prime] = tile(GemmBiasDag(197, 768, 64), 16, 32);
  EXPECT_EQ(prime_rows, 4) << prime.ToString();
}

TEST(DefaultRules, LargeGemmAndChainAreCorrect) {
  EXPECT_LT(DefaultScheduleError(GemmBiasDag(67, 45, 33)), 1e-4);
  EXPECT_LT(DefaultScheduleError(GemmBiasDag(1, 1000, 64)), 1e-4);  // the dense layer shape
  EXPECT_LT(DefaultScheduleError(ElementwiseChainDag(31, 17)), 1e-5);
}

// A dense layer on one input row has no reuse across rows: each thread owns a part of the
// columns and streams B row by row (C's part stays in L1), several rows per pass, unrolled.
TEST(DefaultRules, ASingleRowProductStreamsItsOperandInParts) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    auto dag = GemmBiasDag(1, 1000, 512);  // enough work to pay for waking the pool
    auto s = ApplyDefaultSchedule(dag, RuleContext{16, threads});
    ASSERT_TRUE(s.ok()) << s.status();
    const int out = dag->outputs()[0], product = out - 1;
    ASSERT_EQ(s->stage(product).location, ComputeLocation::kAt) << s->ToString();
    // out: [parts] [strips] [vector]; parts = threads (1000 divides), a vector of 40 or 50 lanes.
    const auto& it = s->stage(out).iters;
    ASSERT_EQ(it.size(), 3u) << s->ToString();
    EXPECT_EQ(s->stage(out).node_of(0).extent, threads) << s->ToString();
    EXPECT_EQ(it[0].annotation == IterAnnotation::kParallel, threads > 1) << s->ToString();
    EXPECT_EQ(s->stage(out).node_of(2).extent, threads == 1 ? 40 : 50) << s->ToString();
    EXPECT_EQ(it[2].annotation, IterAnnotation::kVectorize) << s->ToString();
    // the product, inside a part: [..] [k outer] [strips] [k inner, unrolled] [vector]
    const auto& pit = s->stage(product).iters;
    const int n = static_cast<int>(pit.size());
    EXPECT_EQ(pit[n - 1].annotation, IterAnnotation::kVectorize) << s->ToString();
    EXPECT_EQ(pit[n - 2].annotation, IterAnnotation::kUnroll) << s->ToString();
    EXPECT_EQ(s->stage(product).node_of(n - 2).kind, schedule::IterKind::kReduce) << s->ToString();
    EXPECT_EQ(s->stage(product).node_of(n - 2).extent, 8) << s->ToString();
    EXPECT_EQ(s->stage(product).node_of(n - 4).kind, schedule::IterKind::kReduce) << s->ToString();
  }
  // Correct through the interpreter and a .so, also where no part count or reduce step divides.
  EXPECT_LT(DefaultScheduleError(GemmBiasDag(1, 1000, 64), nullptr, 16), 1e-4);
  EXPECT_LT(DefaultScheduleError(GemmBiasDag(1, 1000, 30), nullptr, 16), 1e-4);
  EXPECT_LT(DefaultScheduleError(GemmBiasDag(1, 999, 12), nullptr, 16), 1e-4);
  EXPECT_LT(DefaultScheduleError(GemmBiasDag(1, 1001, 64), nullptr, 16), 1e-4);
  EXPECT_LT(DefaultScheduleError(GemmDag(1, 1000, 512), nullptr, 8), 1e-4);
}

TEST(DefaultRules, RulesAreAnOrderedTable) {
  std::vector<std::string_view> names;
  for (const auto& r : schedule::DefaultRules()) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"inline", "tile+epilogue", "tile", "reduction", "elementwise"}));
}

}  // namespace
}  // namespace tunefarm::testing
