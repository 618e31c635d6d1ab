// The tuner's search space: sketch rules (which loop structures each DAG gets) and random
// annotation (every sampled program is valid and computes what the DAG means). Programs run in
// the loop-IR interpreter and are compared with the plain DAG evaluator, which shares no code
// with scheduling or lowering.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "common/strings.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/conv_transpose.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/matmul.h"
#include "compiler/ops/normalization.h"
#include "compiler/ops/pooling.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/common/dag_evaluator.h"
#include "tests/common/rewritten_weights.h"
#include "tests/common/test_dags.h"
#include "tuner/search_space/compute_location_choices.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/random_annotation.h"
#include "tuner/search_space/sketch_rules.h"
#include "tuner/search_space/split_factorization.h"

namespace tunefarm::tuner {
namespace {

using tunefarm::testing::GemmDag;
using tunefarm::testing::ConvBiasReluDag;

using schedule::ComputeLocation;
using schedule::IterKind;
using schedule::State;
using te::DType;
using DagPtr = std::shared_ptr<const te::ComputeDag>;

// C = 8, K = 4 x 8 at 5x5 with padding 1: 294 flops per padded element and whole 8-lane
// channel blocks, so its padding may be computed once at the root (padding_placement.h).
DagPtr ChannelRichNchwcConvDag(te::DagBuilder& b) {
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto x = b.Placeholder("x", DType::kFloat32, {1, 1, 5, 5, 8});
  auto w = b.Placeholder("w", DType::kFloat32, {4, 1, 3, 3, 8, 8}, true);
  return b.Build({ops::Relu(b, ops::OrDie(ops::Conv2dNchwc(b, x, w, p)))});
}

SearchTarget TargetOf(std::string_view text) {
  auto t = codegen::Target::Parse(text);
  EXPECT_TRUE(t.ok()) << t.status();
  return SearchTarget::FromTarget(*t);
}

// AVX2, four cores: 8 lanes, 16 registers.
SearchTarget TestTarget() { return TargetOf("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell -num-cores=4"); }

// --- Workloads: the reuse-heavy op families with the epilogues the graph compiler fuses ---

struct Workload {
  std::string name;
  DagPtr dag;
};

std::vector<Workload> Workloads() {
  std::vector<Workload> out;
  auto add = [&](std::string name, const std::function<DagPtr(te::DagBuilder&)>& make) {
    te::DagBuilder b;
    out.push_back({std::move(name), make(b)});
  };
  auto relu_bias = [](te::DagBuilder& b, const ops::Tensor& x, const ops::Tensor& bias, int axis) {
    return ops::Relu(b, ops::BiasAdd(b, x, bias, axis));
  };
  add("matmul", [](te::DagBuilder& b) {
    auto a = b.Placeholder("A", DType::kFloat32, {7, 13});
    auto w = b.Placeholder("B", DType::kFloat32, {13, 9}, true);
    return b.Build({ops::Matmul(b, a, w, false, "C")});
  });
  add("matmul_bias_relu", [&](te::DagBuilder& b) {
    auto a = b.Placeholder("A", DType::kFloat32, {6, 9});
    auto w = b.Placeholder("B", DType::kFloat32, {9, 10}, true);
    auto bias = b.Placeholder("bias", DType::kFloat32, {10}, true);
    return b.Build({relu_bias(b, ops::Matmul(b, a, w, false, "C"), bias, 1)});
  });
  add("dense_bias_relu", [](te::DagBuilder& b) {  // weight [N, K], constant: matmul with B transposed
    auto x = b.Placeholder("x", DType::kFloat32, {5, 11});
    auto w = b.Placeholder("w", DType::kFloat32, {6, 11}, true);
    auto bias = b.Placeholder("bias", DType::kFloat32, {6}, true);
    return b.Build({ops::Relu(b, ops::OrDie(ops::Dense(b, x, w, bias)))});
  });
  add("dense_gemv", [](te::DagBuilder& b) {  // one row, a long reduction: rfactor sketches
    auto x = b.Placeholder("x", DType::kFloat32, {1, 96});
    auto w = b.Placeholder("w", DType::kFloat32, {5, 96}, true);
    return b.Build({ops::OrDie(ops::Dense(b, x, w, std::nullopt))});
  });
  add("batch_matmul_relu", [](te::DagBuilder& b) {
    auto x = b.Placeholder("x", DType::kFloat32, {3, 5, 7});
    auto y = b.Placeholder("y", DType::kFloat32, {3, 7, 6});
    return b.Build({ops::Relu(b, ops::OrDie(ops::BatchMatmul(b, x, y, {})))});
  });
  add("conv2d_3x3_bias_relu", [&](te::DagBuilder& b) {
    ops::Conv2dParams p;
    p.padding = {1, 1, 1, 1};
    auto x = b.Placeholder("x", DType::kFloat32, {1, 3, 7, 7});
    auto w = b.Placeholder("w", DType::kFloat32, {4, 3, 3, 3}, true);
    auto bias = b.Placeholder("bias", DType::kFloat32, {4}, true);
    return b.Build({relu_bias(b, ops::Conv2dNchw(b, x, w, p), bias, 1)});
  });
  add("conv2d_3x3_residual_relu", [](te::DagBuilder&) { return testing::ResidualConvDag(4, 6); });
  add("conv2d_1x1_bias", [](te::DagBuilder& b) {
    auto x = b.Placeholder("x", DType::kFloat32, {1, 5, 6, 6});
    auto w = b.Placeholder("w", DType::kFloat32, {7, 5, 1, 1}, true);
    auto bias = b.Placeholder("bias", DType::kFloat32, {7}, true);
    return b.Build({ops::BiasAdd(b, ops::Conv2dNchw(b, x, w, {}), bias, 1)});
  });
  add("depthwise_s2_bias_relu", [&](te::DagBuilder& b) {
    ops::Conv2dParams p;
    p.padding = {1, 1, 1, 1};
    p.stride = {2, 2};
    p.groups = 4;
    auto x = b.Placeholder("x", DType::kFloat32, {1, 4, 7, 7});
    auto w = b.Placeholder("w", DType::kFloat32, {4, 1, 3, 3}, true);
    auto bias = b.Placeholder("bias", DType::kFloat32, {4}, true);
    return b.Build({relu_bias(b, ops::Conv2dNchw(b, x, w, p), bias, 1)});
  });
  add("grouped_conv2d_relu", [](te::DagBuilder& b) {
    ops::Conv2dParams p;
    p.padding = {1, 1, 1, 1};
    p.groups = 2;
    auto x = b.Placeholder("x", DType::kFloat32, {1, 4, 5, 5});
    auto w = b.Placeholder("w", DType::kFloat32, {6, 2, 3, 3}, true);
    return b.Build({ops::Relu(b, ops::Conv2dNchw(b, x, w, p))});
  });
  add("conv2d_nchwc_relu", [](te::DagBuilder& b) {  // C = 2 x 4, K = 3 x 2
    ops::Conv2dParams p;
    p.padding = {1, 1, 1, 1};
    auto x = b.Placeholder("x", DType::kFloat32, {1, 2, 5, 5, 4});
    auto w = b.Placeholder("w", DType::kFloat32, {3, 2, 3, 3, 4, 2}, true);
    return b.Build({ops::Relu(b, ops::OrDie(ops::Conv2dNchwc(b, x, w, p)))});
  });
  add("conv2d_nchw8c_pad_once", [](te::DagBuilder& b) { return ChannelRichNchwcConvDag(b); });
  add("conv_transpose_s2_bias", [](te::DagBuilder& b) {
    ops::ConvTransposeParams p;
    p.stride = {2, 2};
    p.padding = {1, 1, 1, 1};
    auto x = b.Placeholder("x", DType::kFloat32, {1, 3, 4, 4});
    auto w = b.Placeholder("w", DType::kFloat32, {3, 2, 3, 3}, true);
    auto bias = b.Placeholder("bias", DType::kFloat32, {2}, true);
    return b.Build({ops::BiasAdd(b, ops::OrDie(ops::ConvTranspose(b, x, w, p)), bias, 1)});
  });
  return out;
}

// --- Checking a program against the DAG evaluator ---

struct Reference {
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<double>> outputs;
};

Reference MakeReference(const te::ComputeDag& dag, uint64_t seed) {
  Reference ref;
  std::vector<std::vector<double>> as_double;
  for (int id : dag.inputs()) {
    ref.inputs.push_back(testing::RandomFloats(static_cast<size_t>(dag.tensor(id).NumElements()), seed++));
    as_double.emplace_back(ref.inputs.back().begin(), ref.inputs.back().end());
  }
  ref.outputs = testing::DagEvaluator(dag).Run(as_double);
  return ref;
}

// Lowers and interprets `program`; an error names what went wrong.
absl::Status RunAndCompare(const State& program, const Reference& ref) {
  auto f = tir::Lower(program, "sample");
  if (!f.ok()) return f.status();
  std::vector<std::vector<float>> inputs = ref.inputs, outputs;
  if (auto s = testing::RewriteFloatInputs(program, &inputs); !s.ok()) return s;
  std::vector<void*> args;
  for (auto& in : inputs) args.push_back(in.data());
  for (const auto& out : ref.outputs) outputs.emplace_back(out.size(), NAN);
  for (auto& out : outputs) args.push_back(out.data());
  if (static_cast<int>(args.size()) != f->num_args) return absl::InternalError("argument count differs");
  if (auto s = tir::Interpret(*f, args); !s.ok()) return s;
  for (size_t o = 0; o < outputs.size(); ++o)
    for (size_t i = 0; i < outputs[o].size(); ++i) {
      const double want = ref.outputs[o][i], got = outputs[o][i];
      if (!(std::abs(got - want) <= 1e-4 + 1e-4 * std::abs(want)))
        return absl::InternalError(StrCat("output ", o, " element ", i, ": got ", got, ", want ", want));
    }
  return absl::OkStatus();
}

// --- Looking at sketches ---

int StageNamed(const State& s, std::string_view name) {
  for (int i = 0; i < s.dag().num_tensors(); ++i)
    if (s.dag().tensor(i).name == name) return i;
  return -1;
}

// "S0 S0 S1 ..." for a multi-level tiled stage: each loop's kind and level (the last part of
// its name: i1.2 is level 2; an unsplit axis is level 0).
std::string LevelPattern(const State& s, int stage) {
  std::vector<std::string> parts;
  const schedule::Stage& st = s.stage(stage);
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i) {
    const schedule::IterNode& n = st.node_of(i);
    const size_t dot = n.name.find('.');
    parts.push_back(StrCat(n.kind == IterKind::kSpace ? "S" : "R", dot == std::string::npos ? "0" : n.name.substr(dot + 1)));
  }
  return StrJoin(parts, " ");
}

std::vector<State> Sketches(const DagPtr& dag) {
  std::vector<std::string> notes;
  std::vector<State> sketches = GenerateSketches(dag, TestTarget(), &notes);
  EXPECT_TRUE(notes.empty()) << StrJoin(notes, "\n");
  return sketches;
}



// --- Tests ---

TEST(SearchTarget, FactsComeFromTheCodegenTarget) {
  SearchTarget avx2 = TestTarget();
  EXPECT_EQ(avx2.vector_lanes, 8);
  EXPECT_EQ(avx2.vector_registers, 16);
  EXPECT_EQ(avx2.cores, 4);
  EXPECT_EQ(avx2.MaxVectorExtent(), 32);
  EXPECT_EQ(avx2.RegisterTileElements(), 128);
  SearchTarget avx512 = TargetOf("llvm -mtriple=x86_64-linux-gnu -mcpu=skylake-avx512 -mattr=+avx512f");
  EXPECT_EQ(avx512.vector_lanes, 16);
  EXPECT_EQ(avx512.vector_registers, 32);
  EXPECT_EQ(avx512.MaxVectorExtent(), 64);
  SearchTarget neon = TargetOf("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -l1d-cache=49152 -l2-cache=1048576");
  EXPECT_EQ(neon.vector_lanes, 4);
  EXPECT_EQ(neon.vector_registers, 32);
  EXPECT_EQ(neon.l1_bytes, 49152);
  EXPECT_EQ(neon.l2_bytes, 1048576);
  SearchTarget sse = TargetOf("llvm -mtriple=x86_64-linux-gnu");
  EXPECT_EQ(sse.vector_lanes, 4);
  EXPECT_EQ(sse.vector_registers, 16);
  EXPECT_EQ(sse.cores, 1);
}

TEST(SplitFactorization, DrawsEveryTupleWhoseProductDividesTheExtent) {
  EXPECT_EQ(CountFactorizations(7, 3, 64), 4u);    // the 7 in any of three places, or nowhere
  EXPECT_EQ(CountFactorizations(12, 2, 64), 18u);  // 2^2: 6 ways, 3: 3 ways
  EXPECT_EQ(CountFactorizations(12, 2, 2), 10u);   // innermost 1 or 2
  EXPECT_EQ(CountFactorizations(1, 3, 64), 1u);
  std::mt19937_64 rng(1);
  std::set<std::vector<int64_t>> seen;
  for (int i = 0; i < 2000; ++i) {
    std::vector<int64_t> t = SampleFactorization(12, 2, 2, rng);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(12 % (t[0] * t[1]), 0);
    EXPECT_LE(t[1], 2);
    seen.insert(t);
  }
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(SampleFactorization(-1, 3, 64, rng), (std::vector<int64_t>{1, 1, 1}));
}

TEST(Sketches, GemmAloneGetsALocalCacheTiledSsrsrsAndFusedIntoTheCopyOut) {
  std::vector<State> sketches = Sketches(GemmDag(7, 9, 13));
  ASSERT_EQ(sketches.size(), 3u);  // cache_write fused at S0 and at S1, and plain tiling
  int cached = 0;
  for (const State& s : sketches) {
    EXPECT_FALSE(s.IsConcrete());
    const int local = StageNamed(s, "C.local");
    if (local < 0) {
      EXPECT_EQ(LevelPattern(s, StageNamed(s, "C")), "S0 S0 S1 S1 R0 S2 S2 R1 S3 S3") << s.ToString();
      continue;
    }
    ++cached;
    EXPECT_EQ(s.stage(local).scope, "local");
    EXPECT_EQ(LevelPattern(s, local), "S0 S0 S1 S1 R0 S2 S2 R1 S3 S3") << s.ToString();
    EXPECT_EQ(s.stage(local).location, ComputeLocation::kAt);
    EXPECT_EQ(s.stage(local).attach_stage, StageNamed(s, "C"));
  }
  EXPECT_EQ(cached, 2);
}

TEST(Sketches, GemmWithAnEpilogueIsFusedIntoIt) {
  std::vector<State> sketches = Sketches(testing::GemmBiasDag(6, 10, 9));
  ASSERT_EQ(sketches.size(), 3u);  // fused at S0, fused at S1, unfused
  int fused = 0;
  for (const State& s : sketches) {
    EXPECT_LT(StageNamed(s, "C.local"), 0) << "the epilogue writes the result back: no cache stage";
    const int c = StageNamed(s, "C"), out = StageNamed(s, "out");
    EXPECT_EQ(LevelPattern(s, c), "S0 S0 S1 S1 R0 S2 S2 R1 S3 S3");
    if (s.stage(c).location != ComputeLocation::kAt) continue;
    ++fused;
    EXPECT_EQ(s.stage(c).attach_stage, out);
    const std::string pattern = LevelPattern(s, out);
    EXPECT_TRUE(pattern == "S0 S0 S1 S1" || pattern == "S0 S0 S1 S1 S2 S2") << pattern;
  }
  EXPECT_EQ(fused, 2);
}

// A residual block's Add reads the conv at (0, c, y, x), its 1-long batch at 0: still the same
// point, so the conv is fused into the ReLU's tiles as into any epilogue, and never goes through
// memory whole. (It was not: such an Add read like a gather, and ResNet-18's residual convs got
// only a cache_write, their sum a pass of its own, on CPUs and GPUs alike.)
TEST(Sketches, AResidualAddReadingTheBatchAtZeroIsFusedLikeAnyEpilogue) {
  DagPtr dag = testing::ResidualConvDag(4, 6);
  const int conv = StageNamed(State(dag), "conv2d"), relu = StageNamed(State(dag), "relu");
  ASSERT_GE(conv, 0);
  ASSERT_GE(relu, 0);
  std::vector<State> sketches = Sketches(dag);
  int fused = 0;
  for (const State& s : sketches) {
    EXPECT_EQ(s.stage(StageNamed(s, "residual")).location, ComputeLocation::kInlined);
    EXPECT_LT(StageNamed(s, "conv2d.local"), 0) << "the fused sketches need no cache stage\n" << s.ToString();
    if (s.stage(conv).location != ComputeLocation::kAt) continue;
    EXPECT_EQ(s.stage(conv).attach_stage, relu);
    ++fused;
  }
  EXPECT_EQ(fused, 2) << "fused at S0 and at S1";
}

TEST(Sketches, PaddingIsInlinedAndTheConvTiled) {
  DagPtr dag = ConvBiasReluDag(3, 7, 4);
  std::vector<State> sketches = Sketches(dag);
  ASSERT_EQ(sketches.size(), 3u);
  for (const State& s : sketches) {
    EXPECT_EQ(s.stage(StageNamed(s, "conv2d.pad")).location, ComputeLocation::kInlined);
    EXPECT_EQ(s.stage(StageNamed(s, "bias_add")).location, ComputeLocation::kInlined);
    // Batch (extent 1) is not split; k, oh, ow are tiled in four levels, rc, ry, rx in two.
    EXPECT_EQ(LevelPattern(s, StageNamed(s, "conv2d")), "S0 S0 S0 S0 S1 S1 S1 R0 R0 R0 S2 S2 S2 R1 R1 R1 S3 S3 S3");
  }
}

TEST(Sketches, PaddingWorthComputingOnceGetsSketchesWithItInlinedAndAtTheRoot) {
  te::DagBuilder b;
  DagPtr dag = ChannelRichNchwcConvDag(b);
  std::vector<State> sketches = Sketches(dag);
  int inlined = 0, at_root = 0;
  for (const State& s : sketches) {
    const ComputeLocation where = s.stage(StageNamed(s, "conv2d_nchwc.pad")).location;
    inlined += where == ComputeLocation::kInlined ? 1 : 0;
    at_root += where == ComputeLocation::kRoot ? 1 : 0;
  }
  EXPECT_GT(inlined, 0);
  EXPECT_EQ(at_root, inlined) << "each tiling once with either placement";
}

TEST(Sketches, LongReductionWithLittleParallelismGetsRfactorSketches) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", DType::kFloat32, {1, 96});
  auto w = b.Placeholder("w", DType::kFloat32, {5, 96}, true);
  std::vector<State> sketches = Sketches(b.Build({ops::OrDie(ops::Dense(b, x, w, std::nullopt))}));
  int rfactored = 0;
  for (const State& s : sketches) rfactored += StageNamed(s, "dense.rf") >= 0;
  EXPECT_EQ(rfactored, 2);  // the inner and the outer half of the split reduction
  EXPECT_EQ(sketches.size(), 5u);  // + cache_write at S0 and S1, plain tiling
  // A big GEMM has space to spare: no rfactor.
  for (const State& s : Sketches(GemmDag(64, 64, 96))) EXPECT_LT(StageNamed(s, "C.rf"), 0);
}

TEST(Sketches, OnlyElementwiseStagesStillGiveASketch) {
  DagPtr dag = testing::ElementwiseChainDag(5, 7);
  std::vector<State> sketches = Sketches(dag);
  ASSERT_GE(sketches.size(), 1u);
  SampleStats stats;
  std::mt19937_64 rng(3);
  std::vector<State> programs = SampleInitialPopulation(dag, TestTarget(), 5, rng, &stats);
  EXPECT_FALSE(programs.empty()) << stats.Summary();
  Reference ref = MakeReference(*dag, 11);
  for (const State& p : programs) EXPECT_TRUE(RunAndCompare(p, ref).ok()) << p.ToString();
}

TEST(RandomAnnotation, FillsEveryLengthAndAnnotates) {
  SearchTarget target = TestTarget();
  std::mt19937_64 rng(5);
  int programs = 0, parallel = 0;
  for (const State& sketch : Sketches(GemmDag(16, 24, 32))) {
    for (int i = 0; i < 20; ++i) {
      auto program = AnnotateRandomly(sketch, target, rng);
      ASSERT_TRUE(program.ok()) << program.status();
      EXPECT_TRUE(program->IsConcrete());
      EXPECT_TRUE(CheckProgram(*program, target).ok());
      ++programs;
      bool any_parallel = false;
      for (const schedule::Stage& st : program->stages()) {
        for (const schedule::Iterator& it : st.iters) any_parallel |= it.annotation == schedule::IterAnnotation::kParallel;
        // The innermost space level of the tile (the accumulators) fits the register file.
        int64_t innermost = 1;
        for (int j = 0; j < static_cast<int>(st.iters.size()); ++j)
          if (st.node_of(j).name.size() > 3 && st.node_of(j).name.substr(st.node_of(j).name.size() - 2) == ".3")
            innermost *= st.node_of(j).extent;
        EXPECT_LE(innermost, target.RegisterTileElements()) << program->ToString();
      }
      parallel += any_parallel;
      // Replays from its record.
      auto replayed = State::FromJson(program->original_dag(), program->ToJson());
      ASSERT_TRUE(replayed.ok()) << replayed.status();
      EXPECT_EQ(replayed->Hash(), program->Hash());
    }
  }
  // Only a draw that puts all of C in one innermost tile has no loop to run in parallel.
  EXPECT_GE(parallel * 10, programs * 8) << parallel << " of " << programs;
}

TEST(RandomAnnotation, ElementwiseStageIsParallelOutsideAndVectorizedInside) {
  // r[5, 7] with 4 cores: i0 (5 iterations) parallel, i1 (7) vectorized; p and s inlined.
  std::mt19937_64 rng(2);
  for (const State& sketch : Sketches(testing::ElementwiseChainDag(5, 7))) {
    auto program = AnnotateRandomly(sketch, TestTarget(), rng);
    ASSERT_TRUE(program.ok()) << program.status();
    EXPECT_EQ(program->ToString(), "p: i0(5) i1(7) [inlined]\ns: i0(5) i1(7) [inlined]\nr: i0@parallel(5) i1@vectorize(7)\n");
  }
}

TEST(InitialPopulation, CountsInvalidDrawsByReason) {
  SearchTarget target = TestTarget();
  target.l2_bytes = 64;  // room for 16 accumulators
  std::mt19937_64 rng(4);
  SampleStats stats;
  std::vector<State> programs = SampleInitialPopulation(GemmDag(16, 24, 32), target, 30, rng, &stats);
  EXPECT_EQ(static_cast<int64_t>(programs.size()), stats.valid);
  EXPECT_GT(stats.invalid[kInvalidLocalTile], 0) << stats.Summary();
  EXPECT_EQ(stats.draws, stats.valid + stats.duplicates + stats.invalid_total());
  EXPECT_NE(stats.Summary().find("local tile over L2"), std::string::npos) << stats.Summary();
  EXPECT_NE(stats.first_messages[kInvalidLocalTile].find("local buffer C.local needs"), std::string::npos);
  for (const State& p : programs) {
    auto f = tir::Lower(p, "kept");
    ASSERT_TRUE(f.ok()) << f.status();
    for (const tir::Buffer& b : f->buffers)
      if (b.scope == tir::BufferScope::kLocal) {
        EXPECT_LE(b.NumBytes(), 64) << p.ToString();
      }
  }
}

// The validity lowerings run on every core, but what comes out depends only on the seed, and
// the lowered functions handed back are those of the programs, in order.
TEST(InitialPopulation, DependsOnlyOnTheSeedAndHandsBackEachProgramLowered) {
  SearchTarget target = TestTarget();
  target.l2_bytes = 256;  // some draws are invalid, so rounds of draws repeat
  const std::vector<State> sketches = Sketches(GemmDag(16, 24, 32));
  auto sample = [&](SampleStats* stats, std::vector<tir::PrimFunc>* lowered) {
    std::mt19937_64 rng(11);
    return SampleFromSketches(sketches, target, 40, rng, stats, 0, lowered);
  };
  SampleStats first_stats, second_stats;
  std::vector<tir::PrimFunc> lowered;
  const std::vector<State> first = sample(&first_stats, &lowered);
  const std::vector<State> second = sample(&second_stats, nullptr);
  ASSERT_EQ(first.size(), second.size());
  EXPECT_GT(first_stats.invalid_total(), 0) << first_stats.Summary();
  EXPECT_EQ(first_stats.Summary(), second_stats.Summary());
  EXPECT_EQ(first_stats.draws, first_stats.valid + first_stats.duplicates + first_stats.invalid_total());
  ASSERT_EQ(lowered.size(), first.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].Hash(), second[i].Hash()) << i;
    absl::StatusOr<tir::PrimFunc> again = LowerProgram(first[i], target);
    ASSERT_TRUE(again.ok()) << again.status();
    ASSERT_EQ(lowered[i].buffers.size(), again->buffers.size()) << first[i].ToString();
    for (size_t b = 0; b < again->buffers.size(); ++b) {
      EXPECT_EQ(lowered[i].buffers[b].name, again->buffers[b].name);
      EXPECT_EQ(lowered[i].buffers[b].NumBytes(), again->buffers[b].NumBytes());
    }
  }
}

TEST(RandomAnnotation, OneCoreMeansNoParallelLoop) {
  SearchTarget target = TestTarget();
  target.cores = 1;
  std::mt19937_64 rng(9);
  for (const State& sketch : Sketches(GemmDag(8, 8, 8))) {
    auto program = AnnotateRandomly(sketch, target, rng);
    ASSERT_TRUE(program.ok()) << program.status();
    for (const schedule::Stage& st : program->stages())
      for (const schedule::Iterator& it : st.iters) EXPECT_NE(it.annotation, schedule::IterAnnotation::kParallel);
  }
}

bool HasChoice(const std::vector<schedule::Step>& choices, int stage, int target, int iter) {
  for (const schedule::Step& c : choices) {
    const auto* at = std::get_if<schedule::ComputeAtStep>(&c);
    if (at && at->stage == stage && at->target_stage == target && at->target_iter == iter) return true;
  }
  return false;
}

TEST(ComputeLocations, AStageWithTwoReadersJoinsThemInsideTheirCommonReader) {
  // softmax: max -> exp -> {sum, out}, sum -> out. With the sum computed at the division's row
  // loop, the exp (read by both) can go there too, and then the max through the chain.
  te::DagBuilder b;
  auto x = b.Placeholder("x", DType::kFloat32, {6, 40});
  auto dag = b.Build({ops::Softmax(b, x)});
  State s(dag);
  const int max = StageNamed(s, "softmax.max"), exp = StageNamed(s, "softmax.exp");
  const int sum = StageNamed(s, "softmax.sum"), out = StageNamed(s, "softmax");
  ASSERT_TRUE(s.ComputeAt(sum, out, 0).ok());
  ASSERT_TRUE(HasChoice(ComputeLocationChoices(s, exp), exp, out, 0)) << s.ToString();
  EXPECT_FALSE(HasChoice(ComputeLocationChoices(s, exp), exp, out, 1)) << "inside the loop that hosts the sum";
  ASSERT_TRUE(s.ComputeAt(exp, out, 0).ok());
  std::vector<schedule::Step> max_choices = ComputeLocationChoices(s, max);
  EXPECT_TRUE(HasChoice(max_choices, max, exp, 0)) << "its direct reader's loops stay choices";
  ASSERT_TRUE(HasChoice(max_choices, max, out, 0)) << s.ToString();
  ASSERT_TRUE(s.ComputeAt(max, out, 0).ok());
  EXPECT_TRUE(RunAndCompare(s, MakeReference(*dag, 3)).ok()) << s.ToString();
  // Random annotation draws such programs.
  std::mt19937_64 rng(21);
  int joined = 0;
  for (const State& sketch : Sketches(dag))
    for (int i = 0; i < 40; ++i) {
      auto program = AnnotateRandomly(sketch, TestTarget(), rng);
      ASSERT_TRUE(program.ok()) << program.status();
      const schedule::Stage& e = program->stage(StageNamed(*program, "softmax.exp"));
      joined += e.location == ComputeLocation::kAt && e.attach_stage == StageNamed(*program, "softmax");
    }
  EXPECT_GT(joined, 0);
}

bool HasLayoutRewrite(const State& p) {
  return std::any_of(p.steps().begin(), p.steps().end(),
                     [](const schedule::Step& s) { return std::holds_alternative<schedule::LayoutRewriteStep>(s); });
}

// Every op family: 200 distinct sampled programs each lower and compute what the DAG means.
class SampledPrograms : public ::testing::TestWithParam<int> {};

TEST_P(SampledPrograms, MatchTheReference) {
  const Workload w = Workloads()[GetParam()];
  const auto start = std::chrono::steady_clock::now();
  SearchTarget target = TestTarget();
  std::vector<std::string> notes;
  std::vector<State> sketches = GenerateSketches(w.dag, target, &notes);
  EXPECT_TRUE(notes.empty()) << StrJoin(notes, "\n");
  std::mt19937_64 rng(1000 + GetParam());
  SampleStats stats;
  std::vector<State> programs = SampleFromSketches(sketches, target, 200, rng, &stats);
  std::printf("[ %s ] %zu sketches (valid per sketch: %s); %s\n", w.name.c_str(), sketches.size(),
              StrJoin(stats.valid_per_sketch, " ").c_str(), stats.Summary().c_str());
  for (const auto& [reason, message] : stats.first_messages) std::printf("    first %s: %s\n", reason.c_str(), message.c_str());
  EXPECT_EQ(programs.size(), 200u) << stats.Summary();
  // Invalid draws are tolerated but must stay rare.
  EXPECT_LE(stats.invalid_total() * 10, stats.draws) << stats.Summary();
  for (int64_t n : stats.valid_per_sketch) EXPECT_GT(n, 0) << "a sketch never gave a valid program";
  Reference ref = MakeReference(*w.dag, 77);
  int failures = 0, rewritten = 0;
  for (const State& p : programs) {
    absl::Status s = RunAndCompare(p, ref);
    if (!s.ok() && ++failures <= 3) ADD_FAILURE() << s << "\n" << p.ToString() << p.ToJson();
    rewritten += HasLayoutRewrite(p);
  }
  EXPECT_EQ(failures, 0);
  // Annotation rewrites the constant weights of a tiled stage in about half the draws (a
  // batch matmul's B is an input; a transposed conv reads its weights flipped, at no axis).
  static const std::set<std::string> kRewritable = {"matmul",          "matmul_bias_relu",         "dense_bias_relu",
                                                    "conv2d_3x3_bias_relu", "conv2d_3x3_residual_relu", "conv2d_1x1_bias",
                                                    "grouped_conv2d_relu",  "conv2d_nchwc_relu"};
  if (kRewritable.count(w.name)) {
    EXPECT_GT(rewritten, 50);
    EXPECT_LT(rewritten, 150);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ %s ] checked %zu programs (%d with weights in a rewritten layout) in %.2f s\n", w.name.c_str(),
              programs.size(), rewritten, seconds);
}

INSTANTIATE_TEST_SUITE_P(OpFamilies, SampledPrograms, ::testing::Range(0, static_cast<int>(Workloads().size())),
                         [](const ::testing::TestParamInfo<int>& info) { return Workloads()[info.param].name; });

// Model-sized workloads are too big to interpret, but every kept program must lower, and
// invalid draws (local tiles over the L2 cache) must stay a minority.
TEST(InitialPopulation, ModelSizedWorkloadsLower) {
  std::vector<Workload> big;
  big.push_back({"gemm_512", GemmDag(512, 512, 512)});
  big.push_back({"resnet_conv3x3", ConvBiasReluDag(64, 56, 64)});
  SearchTarget target = TargetOf("llvm -mtriple=x86_64-linux-gnu -mcpu=skylake-avx512 -mattr=+avx512f -num-cores=16");
  for (const Workload& w : big) {
    std::mt19937_64 rng(13);
    SampleStats stats;
    std::vector<State> programs = SampleInitialPopulation(w.dag, target, 50, rng, &stats);
    std::printf("[ %s ] %s\n", w.name.c_str(), stats.Summary().c_str());
    for (const auto& [reason, message] : stats.first_messages) std::printf("    first %s: %s\n", reason.c_str(), message.c_str());
    EXPECT_EQ(programs.size(), 50u) << stats.Summary();
    EXPECT_LE(stats.invalid_total() * 2, stats.draws) << stats.Summary();
  }
}

// Kernels without reuse (reductions, costly elementwise stages): no tiling, but rfactor sketches
// and sampled compute locations (inline, root, or a reader's loop).
TEST(KernelsWithoutReuse, SampledProgramsMatchTheReference) {
  std::vector<Workload> kernels;
  {
    te::DagBuilder b;
    auto x = b.Placeholder("x", DType::kFloat32, {5, 37});
    kernels.push_back({"softmax", b.Build({ops::Softmax(b, x)})});
  }
  {
    te::DagBuilder b;
    auto x = b.Placeholder("x", DType::kFloat32, {3, 21});
    auto gamma = b.Placeholder("gamma", DType::kFloat32, {21}, true);
    auto beta = b.Placeholder("beta", DType::kFloat32, {21}, true);
    kernels.push_back({"layer_norm", b.Build({ops::LayerNorm(b, x, gamma, beta, 1e-5)})});
  }
  {
    te::DagBuilder b;
    ops::Pool2dParams p;
    p.kind = ops::PoolKind::kAvg;
    p.kernel = {3, 3};
    p.padding = {1, 1, 1, 1};
    auto x = b.Placeholder("x", DType::kFloat32, {1, 3, 9, 9});
    kernels.push_back({"avg_pool_pad", b.Build({ops::Pool2dNchw(b, x, p)})});
  }
  {
    te::DagBuilder b;
    auto x = b.Placeholder("x", DType::kFloat32, {1, 2, 9, 11});
    kernels.push_back({"global_max_pool", b.Build({ops::OrDie(ops::GlobalPool(b, x, ops::PoolKind::kMax))})});
  }
  SearchTarget target = TestTarget();
  for (const Workload& w : kernels) {
    std::mt19937_64 rng(7);
    SampleStats stats;
    std::vector<State> programs = SampleInitialPopulation(w.dag, target, 60, rng, &stats);
    std::printf("[ %s ] %s\n", w.name.c_str(), stats.Summary().c_str());
    for (const auto& [reason, message] : stats.first_messages) std::printf("    first %s: %s\n", reason.c_str(), message.c_str());
    EXPECT_GE(programs.size(), 30u) << w.name << ": " << stats.Summary();
    EXPECT_LE(stats.invalid_total() * 10, stats.draws) << w.name << ": " << stats.Summary();
    Reference ref = MakeReference(*w.dag, 5);
    for (const State& p : programs) {
      absl::Status s = RunAndCompare(p, ref);
      EXPECT_TRUE(s.ok()) << w.name << ": " << s << "\n" << p.ToString();
    }
  }
}

}  // namespace
}  // namespace tunefarm::tuner
