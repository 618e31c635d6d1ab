// The GPU search space (tuner/search_space/gpu_sketch_rules.h, gpu_annotation.h): the sketch a
// GEMM or a conv gets for a cuda target, and programs drawn from it. No GPU is needed: every
// drawn program must plan its launches within the device's limits, and computes what the DAG
// means when its threads run as a GPU runs them (tir::InterpretAsGpu: each block's threads in
// turns between barriers, sharing the block's shared tiles), checked against the plain DAG
// evaluator; a few are compiled to PTX and assembled by ptxas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/matmul.h"
#include "compiler/tir/gpu_interpreter.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/shared_bank_conflicts.h"
#include "tests/common/gpu_schedules.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/ptxas.h"
#include "tests/common/test_dags.h"
#include "tuner/evolution/evolutionary_search.h"
#include "tuner/evolution/mutation_rules.h"
#include "tuner/evolution/step_edit.h"
#include "tuner/features/program_features.h"
#include "tuner/search_space/gpu_sketch_rules.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/random_annotation.h"
#include "tuner/search_space/shared_tiles.h"
#include "tuner/search_space/sketch_rules.h"

namespace tunefarm::tuner {
namespace {

using schedule::ComputeLocation;
using schedule::IterAnnotation;
using schedule::State;

codegen::Target Cuda(const char* text = "cuda -arch=sm_80") { return codegen::Target::Parse(text).value(); }

int StageNamed(const State& s, const std::string& name) {
  for (int i = 0; i < static_cast<int>(s.stages().size()); ++i)
    if (s.dag().tensor(i).name == name) return i;
  return -1;
}

// The storage-align (row padding) steps of a program.
int StorageAligns(const State& p) {
  int n = 0;
  for (const schedule::Step& step : p.steps()) n += std::holds_alternative<schedule::StorageAlignStep>(step);
  return n;
}

double GpuError(const State& program, uint64_t seed) {
  return testing::InterpretedError(program, seed, [](const tir::PrimFunc& f, const std::vector<void*>& args) {
    return tir::InterpretAsGpu(f, args);
  });
}

TEST(GpuSketches, AGemmGetsSharedTilesARegisterTileAndABoundCopyOut) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda());
  ASSERT_TRUE(target.gpu);
  std::vector<std::string> notes;
  std::vector<State> sketches = GenerateSketches(testing::GemmDag(64, 48, 32), target, &notes);
  EXPECT_TRUE(notes.empty()) << notes[0];
  ASSERT_EQ(sketches.size(), 1u);
  const State& s = sketches[0];
  const int local = StageNamed(s, "C.local"), copy = StageNamed(s, "C");
  ASSERT_GE(local, 0);
  ASSERT_GE(copy, 0);
  EXPECT_EQ(s.stage(local).scope, "local");
  EXPECT_EQ(s.stage(local).location, ComputeLocation::kAt);
  EXPECT_EQ(s.stage(local).attach_stage, copy);
  // The copy-out: the blocks (both axes' S0 fused), the virtual threads (S1 fused), the threads
  // (S2 fused), the register tile.
  ASSERT_EQ(s.stage(copy).iters.size(), 5u) << s.ToString();
  EXPECT_EQ(s.AttachedAt(copy, s.stage(copy).iters[2].node), std::vector<int>{local}) << s.ToString();
  int shared = 0;
  for (int i = 0; i < static_cast<int>(s.stages().size()); ++i) {
    if (s.stage(i).scope != "shared") continue;
    ++shared;
    EXPECT_EQ(s.stage(i).location, ComputeLocation::kAt);
    EXPECT_EQ(s.stage(i).attach_stage, local);
    EXPECT_EQ(s.stage(i).iters.size(), 3u) << "fused, split by the lanes a thread moves, then by the block's threads";
  }
  EXPECT_EQ(shared, 2);
  EXPECT_FALSE(s.IsConcrete());
}

// A GEMM with a bias and ReLU after it: the epilogue takes the copy-out's place, so the whole
// DAG is one launch and C never goes through global memory.
TEST(GpuSketches, AnElementwiseEpilogueRunsInTheTilesLaunch) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda());
  std::vector<State> sketches = GenerateSketches(testing::GemmBiasDag(32, 64, 16), target);
  ASSERT_EQ(sketches.size(), 1u);
  EXPECT_EQ(sketches[0].stage(StageNamed(sketches[0], "C")).location, ComputeLocation::kInlined);
  std::mt19937_64 rng(4);
  std::vector<State> programs = SampleInitialPopulation(testing::GemmBiasDag(32, 64, 16), target, 4, rng, nullptr);
  ASSERT_EQ(programs.size(), 4u);
  for (const State& p : programs) {
    auto f = tir::Lower(p, "k");
    ASSERT_TRUE(f.ok()) << f.status();
    auto launches = tir::PlanGpuLaunches(*f, {target.max_threads_per_block, target.max_shared_bytes});
    ASSERT_TRUE(launches.ok()) << launches.status();
    EXPECT_EQ(launches->size(), 1u) << tir::PrimFuncToString(*f);
  }
}

// C is an output and also read by an elementwise stage: the copy-out stays C (an output is
// written, never inlined), the tile keeps its shared and register tiles, and the ReLU is a
// launch of its own.
TEST(GpuSketches, AnOutputReadByAnEpilogueIsStillTiled) {
  te::DagBuilder b;
  auto a = b.Placeholder("A", te::DType::kFloat32, {32, 16});
  auto w = b.Placeholder("B", te::DType::kFloat32, {16, 48}, true);
  auto c = ops::Matmul(b, a, w, false, "C");
  auto dag = b.Build({c, ops::Relu(b, c)});
  const SearchTarget target = SearchTarget::FromTarget(Cuda());
  std::vector<std::string> notes;
  std::vector<State> sketches = GenerateSketches(dag, target, &notes);
  EXPECT_TRUE(notes.empty()) << notes[0];
  ASSERT_EQ(sketches.size(), 1u);
  EXPECT_GE(StageNamed(sketches[0], "A.shared"), 0) << sketches[0].ToString();
  std::mt19937_64 rng(2);
  std::vector<State> programs = SampleInitialPopulation(dag, target, 3, rng, nullptr);
  ASSERT_EQ(programs.size(), 3u);
  for (size_t p = 0; p < programs.size(); ++p) EXPECT_LT(GpuError(programs[p], 60 + p), 1e-3) << programs[p].ToString();
}

// A reduction long enough for a warp, not tiled: a sketch that keeps it (one thread per row) and
// one that shares each row's reduction among a block's threads; drawn programs of the second
// bind the inner reduce loop to threadIdx.x, with a block size of at least a warp.
TEST(GpuSketches, ALongUntiledReductionGetsACrossThreadSketch) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda());
  std::vector<std::string> notes;
  std::vector<State> sketches = GenerateSketches(testing::RowReduceDag(6, 100, te::ReduceKind::kSum), target, &notes);
  ASSERT_EQ(sketches.size(), 2u);
  int cross_thread = 0;
  for (const State& sketch : sketches) cross_thread += IsCrossThreadReduction(sketch, 1);
  EXPECT_EQ(cross_thread, 1);
  // 16 columns are too few to share: the rule stays out.
  EXPECT_EQ(GenerateSketches(testing::RowReduceDag(6, 16, te::ReduceKind::kSum), target, &notes).size(), 1u);
  std::mt19937_64 rng(4);
  int drawn = 0;
  for (const State& p : SampleInitialPopulation(testing::RowReduceDag(6, 100, te::ReduceKind::kSum), target, 16, rng,
                                                nullptr)) {
    if (!IsCrossThreadReduction(p, 1)) continue;
    ++drawn;
    const schedule::Stage& r = p.stage(1);
    EXPECT_EQ(r.iters.back().annotation, schedule::IterAnnotation::kThreadX) << p.ToString();
    EXPECT_GE(r.node_of(static_cast<int>(r.iters.size()) - 1).extent, 32) << p.ToString();
    EXPECT_LT(GpuError(p, 9), 1e-3) << p.ToString();
  }
  EXPECT_GT(drawn, 0);
}

struct GpuCase {
  const char* name;
  std::shared_ptr<const te::ComputeDag> (*dag)();
};

class GpuSampledPrograms : public ::testing::TestWithParam<GpuCase> {};

// Every drawn program plans, binds its tiles' loops and computes the DAG as a GPU runs it.
TEST_P(GpuSampledPrograms, PlanTheirLaunchesAndMatchTheReferenceRunAsAGpu) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda());
  std::mt19937_64 rng(11);
  SampleStats stats;
  std::vector<State> programs = SampleInitialPopulation(GetParam().dag(), target, 12, rng, &stats);
  ASSERT_GE(programs.size(), 6u) << stats.Summary() << "\n"
                                 << (stats.first_messages.empty() ? "" : stats.first_messages.begin()->second);
  int bound_tiles = 0, paddable = 0, padded = 0;
  for (size_t p = 0; p < programs.size(); ++p) {
    const State& program = programs[p];
    padded += StorageAligns(program);
    for (int st = 0; st < static_cast<int>(program.stages().size()); ++st) paddable += HasPaddableRows(program, st);
    ASSERT_TRUE(CheckProgram(program, target).ok()) << CheckProgram(program, target);
    auto f = tir::Lower(program, "k");
    ASSERT_TRUE(f.ok()) << f.status();
    auto launches = tir::PlanGpuLaunches(*f, {target.max_threads_per_block, target.max_shared_bytes});
    ASSERT_TRUE(launches.ok()) << launches.status();
    for (const tir::GpuLaunch& l : *launches) {
      EXPECT_LE(l.block[0] * l.block[1] * l.block[2], target.max_threads_per_block);
      bound_tiles += l.shared_bytes > 0;
    }
    EXPECT_LT(GpuError(program, 3 + p), 1e-3) << program.ToString() << "\n" << tir::PrimFuncToString(*f);
  }
  EXPECT_GT(bound_tiles, 0) << "no program used shared memory";
  // Half the shared tiles drawn get padded rows, so the padded layout is checked here too (a
  // cross-thread reduction's one-dimensional buffer has no rows).
  if (paddable > 0) { EXPECT_GT(padded, 0); }
}

INSTANTIATE_TEST_SUITE_P(
    Dags, GpuSampledPrograms,
    ::testing::Values(GpuCase{"gemm", [] { return testing::GemmDag(64, 48, 32); }},
                      GpuCase{"gemm_odd", [] { return testing::GemmDag(24, 20, 18); }},
                      GpuCase{"gemm_bias", [] { return testing::GemmBiasDag(32, 64, 16); }},
                      GpuCase{"conv_bias_relu", [] { return testing::ConvBiasReluDag(8, 10, 16); }},
                      GpuCase{"row_sum", [] { return testing::RowReduceDag(6, 100, te::ReduceKind::kSum); }},
                      GpuCase{"row_max", [] { return testing::RowReduceDag(8, 256, te::ReduceKind::kMax); }}),
    [](const ::testing::TestParamInfo<GpuCase>& info) { return std::string(info.param.name); });

// Evolution on GPU programs (tile sizes moved between levels, the other rules finding nothing
// to change or refused) emits only programs that plan their launches and compute the DAG.
TEST(GpuEvolution, MutantsAreValidAndMatchTheReferenceRunAsAGpu) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda());
  std::mt19937_64 rng(7);
  std::vector<State> initial = SampleInitialPopulation(testing::GemmDag(64, 64, 32), target, 24, rng, nullptr);
  ASSERT_GE(initial.size(), 16u);
  // Each thread's accumulators: its virtual threads (the copy-out's second loop) times the
  // copy-out's loops inside its thread loop.
  auto register_tile = [](const State& p) {
    const schedule::Stage& copy = p.stage(StageNamed(p, "C"));
    int64_t tile = copy.node_of(1).extent;
    for (int l = 3; l < static_cast<int>(copy.iters.size()); ++l) tile *= copy.node_of(l).extent;
    return tile;
  };
  // A score to climb that pushes against the register budget: bigger register tiles.
  auto score = [&](const std::vector<State>& programs) {
    std::vector<float> out;
    for (const State& p : programs) out.push_back(static_cast<float>(register_tile(p)));
    return out;
  };
  EvolutionOptions options;
  options.population = 96;
  options.generations = 4;
  options.seed = 3;
  EvolutionResult r = EvolutionarySearch(initial, target, score, {}, 8, options);
  ASSERT_EQ(r.programs.size(), 8u) << r.stats.Summary();
  EXPECT_GT(r.stats.mutations.rules[0].applied, 0) << r.stats.Summary();
  for (size_t rule = 0; rule < MutationRules().size(); ++rule)
    if (MutationRules()[rule].name == "storage align") {
      EXPECT_GT(r.stats.mutations.rules[rule].applied, 0) << r.stats.Summary();
    }
  for (size_t i = 0; i < r.programs.size(); ++i) {
    ASSERT_TRUE(CheckProgram(r.programs[i], target).ok()) << CheckProgram(r.programs[i], target);
    EXPECT_LT(GpuError(r.programs[i], 40 + i), 1e-3) << r.programs[i].ToString();
    // Mutants keep the budget annotation keeps, however hard the score pushes.
    const int64_t threads = r.programs[i].stage(StageNamed(r.programs[i], "C")).node_of(2).extent;
    EXPECT_LE(register_tile(r.programs[i]), target.AccumulatorsPerThread(threads)) << r.programs[i].ToString();
    EXPECT_LE(r.programs[i].stage(StageNamed(r.programs[i], "C")).node_of(1).extent, kMaxVirtualThreads);
  }
}

// The compute-location rule moves the stages annotation placed, never a shared tile the GPU
// sketch placed at its reader's step loop (an evolved program once read A from global memory,
// its shared copy inlined).
TEST(GpuEvolution, ComputeLocationLeavesSharedTilesWhereTheSketchPutThem) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda());
  std::mt19937_64 rng(29);
  te::DagBuilder b;  // a GEMM with an exp prologue: not inlined by the sketch, placed by annotation
  auto a = b.Placeholder("A", te::DType::kFloat32, {64, 32});
  auto w = b.Placeholder("B", te::DType::kFloat32, {32, 48}, true);
  const auto dag = b.Build({ops::Matmul(b, ops::Map(b, a, te::Exp, "exp"), w, false, "C")});
  std::vector<State> programs = SampleInitialPopulation(dag, target, 16, rng, nullptr);
  ASSERT_GE(programs.size(), 8u);
  int mutants = 0;
  for (int round = 0; round < 8; ++round)
    for (const State& p : programs) {
      absl::StatusOr<State> mutant = MutateComputeLocation(p, target, rng);
      if (!mutant.ok()) continue;
      ++mutants;
      for (const schedule::Stage& st : mutant->stages())
        if (st.scope == "shared") { EXPECT_EQ(st.location, schedule::ComputeLocation::kAt) << mutant->ToString(); }
    }
  EXPECT_GT(mutants, 0);
}

// The storage-align rule pads one shared tile's rows, or takes the padding away; both happen,
// and every mutant still computes the GEMM as a GPU runs it. A program whose tiles have one row
// each (padding would leave them as they are) and a CPU program (no shared tile) have nothing
// to toggle.
TEST(GpuEvolution, StorageAlignTogglesTheRowPaddingOfOneSharedTile) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda());
  std::mt19937_64 rng(17);
  std::vector<State> programs = SampleInitialPopulation(testing::GemmDag(48, 40, 24), target, 8, rng, nullptr);
  ASSERT_GE(programs.size(), 4u);
  int added = 0, removed = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    absl::StatusOr<State> mutant = MutateStorageAlign(programs[i], target, rng);
    if (!mutant.ok()) {
      EXPECT_EQ(mutant.status().code(), absl::StatusCode::kFailedPrecondition) << mutant.status();
      for (int st = 0; st < static_cast<int>(programs[i].stages().size()); ++st)
        EXPECT_FALSE(HasRows(programs[i], st)) << programs[i].ToString();
      continue;
    }
    const int delta = StorageAligns(*mutant) - StorageAligns(programs[i]);
    ASSERT_TRUE(delta == 1 || delta == -1) << mutant->ToString();
    (delta == 1 ? added : removed)++;
    ASSERT_TRUE(CheckProgram(*mutant, target).ok()) << CheckProgram(*mutant, target);
    EXPECT_LT(GpuError(*mutant, 60 + i), 1e-3) << mutant->ToString();
  }
  EXPECT_GT(added, 0);
  EXPECT_GT(removed, 0);
  const SearchTarget cpu = SearchTarget::FromTarget(codegen::Target::Parse("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell -num-cores=4").value());
  std::vector<State> host = SampleInitialPopulation(testing::GemmDag(48, 40, 24), cpu, 1, rng, nullptr);
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(MutateStorageAlign(host[0], cpu, rng).status().code(), absl::StatusCode::kFailedPrecondition);
}

// The tile-size mutation changes the shared tiles' shapes; the fetches follow
// (FitFetchesToTiles): lanes that no longer divide the rows shrink to ones that do, and padding
// that no longer pads the rows (the innermost dimension longer than 1), or of rows that became
// odd (which would leave them as they are), goes. Mutants that needed either are checked to
// run as a GPU runs them. Returns how many kept padding along a dimension other than the
// innermost.
int CheckTileSizeMutants(std::shared_ptr<const te::ComputeDag> dag, uint64_t seed) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda("cuda -arch=sm_90"));
  std::mt19937_64 rng(seed);
  std::vector<State> programs = SampleInitialPopulation(dag, target, 32, rng, nullptr);
  EXPECT_GE(programs.size(), 24u);
  int mutants = 0, fitted = 0, checked = 0, outer_padding = 0;
  for (int round = 0; round < 8; ++round) {
    for (State& p : programs) {
      absl::StatusOr<State> mutant = MutateTileSize(p, target, rng);
      if (!mutant.ok()) continue;
      ++mutants;
      bool needed_fit = false;  // would the mutant's own shared tiles have broken a rule?
      for (int st = 0; st < static_cast<int>(mutant->stages().size()); ++st) {
        const schedule::Stage& stage = mutant->stage(st);
        if (stage.scope != "shared") continue;
        absl::StatusOr<SharedTile> tile = EstimateSharedTile(*mutant, st);
        EXPECT_TRUE(tile.ok()) << tile.status();
        if (!tile.ok()) continue;
        EXPECT_EQ(tile->row() % stage.node_of(2).extent, 0) << mutant->ToString();
        if (stage.storage_align_factor != 0) {  // the tile's rows, and even
          EXPECT_EQ(stage.storage_align_axis, tile->RowDim() - 1) << mutant->ToString();
          EXPECT_EQ(tile->extents[tile->RowDim()] % 2, 0) << mutant->ToString();
          outer_padding += stage.storage_align_axis + 2 < static_cast<int>(tile->extents.size());
        }
        const schedule::Stage& before = p.stage(st);
        needed_fit |= before.node_of(2).extent != stage.node_of(2).extent ||
                      before.storage_align_factor != stage.storage_align_factor;
      }
      fitted += needed_fit;
      if (checked < 6 && needed_fit) { EXPECT_LT(GpuError(*mutant, 80 + checked++), 1e-3) << mutant->ToString(); }
      p = *std::move(mutant);
    }
  }
  EXPECT_GT(mutants, 100);
  EXPECT_GE(fitted, 5) << "of " << mutants << " mutants";
  return outer_padding;
}

// On a GEMM whose tiles' rows vary (K = 24, N = 40), many mutants need a refit.
TEST(GpuEvolution, TileSizeMutantsFetchWithLanesAndPaddingThatFitTheirTiles) {
  CheckTileSizeMutants(testing::GemmDag(48, 40, 24), 17);
}

// A 1x1 conv's weight tiles [K, C, 1, 1] are padded along C: the padding must follow the rows
// as the tile sizes change (once the innermost dimension counted as the rows, and every
// mutation dropped that padding).
TEST(GpuEvolution, TileSizeMutantsOfAPointwiseConvKeepItsWeightRowsPadded) {
  EXPECT_GT(CheckTileSizeMutants(testing::PointwiseConvDag(16, 8, 6), 19), 0);
}

// Tile-size mutants of GEMM 4096^3 whose shared tiles would overflow the block's shared memory
// are refused by the mutation itself (a review counted 106 of 425 that lowering would have
// refused, after the whole cost of lowering them); those it gives all plan their launches.
TEST(GpuEvolution, TileSizeMutantsFitSharedMemory) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda("cuda -arch=sm_90"));
  std::mt19937_64 rng(23);
  std::vector<State> programs = SampleInitialPopulation(testing::GemmDag(4096, 4096, 4096), target, 16, rng, nullptr);
  ASSERT_EQ(programs.size(), 16u);
  int mutants = 0, refused_for_shared_memory = 0;
  for (int i = 0; i < 240; ++i) {
    absl::StatusOr<State> mutant = MutateTileSize(programs[i % programs.size()], target, rng);
    if (!mutant.ok()) {
      refused_for_shared_memory += mutant.status().message().find("shared memory") != std::string::npos;
      continue;
    }
    ++mutants;
    EXPECT_TRUE(CheckProgram(*mutant, target).ok()) << CheckProgram(*mutant, target);
  }
  EXPECT_GT(mutants, 100);
  EXPECT_GT(refused_for_shared_memory, 0);
}

// A fetch's loops after annotation: [outer, threads, lanes], the lanes 1, 2 or 4 and vectorized,
// whatever evolution did to the tile sizes; with 4 lanes on a GEMM whose tiles' rows are
// multiples of 4, code generation loads 128 bits a thread (nvptx_codegen.cc).
TEST(GpuSketches, FetchesMoveUpTo4LanesAThreadAndStayCorrect) {
  const codegen::Target cuda = Cuda("cuda -arch=sm_90");
  const SearchTarget target = SearchTarget::FromTarget(cuda);
  std::mt19937_64 rng(29);
  std::vector<State> programs = SampleInitialPopulation(testing::GemmDag(128, 128, 32), target, 24, rng, nullptr);
  ASSERT_GE(programs.size(), 16u);
  EvolutionOptions options;
  options.population = 48;
  options.generations = 2;
  options.seed = 5;
  auto by_size = [](const std::vector<State>& ps) {  // pushes the tile-size mutation along
    std::vector<float> out;
    for (const State& p : ps) out.push_back(static_cast<float>(p.steps().size() % 7));
    return out;
  };
  EvolutionResult evolved = EvolutionarySearch(programs, target, by_size, {}, 8, options);
  for (const State& p : evolved.programs) programs.push_back(p);
  std::map<int64_t, int> lanes_seen;
  int vector_loads = 0;
  for (const State& p : programs) {
    for (int st = 0; st < static_cast<int>(p.stages().size()); ++st) {
      const schedule::Stage& stage = p.stage(st);
      if (stage.scope != "shared") continue;
      ASSERT_EQ(stage.iters.size(), 3u) << p.ToString();
      EXPECT_EQ(stage.iters[1].annotation, IterAnnotation::kThreadX) << p.ToString();
      EXPECT_EQ(stage.iters[2].annotation, IterAnnotation::kVectorize) << p.ToString();
      const int64_t lanes = stage.node_of(2).extent;
      EXPECT_TRUE(lanes == 1 || lanes == 2 || lanes == 4) << p.ToString();
      ++lanes_seen[lanes];
      // Drawn and mutated alike, the lanes divide the tile's rows and padded rows are even
      // (FitFetchesToTiles after a tile-size mutation).
      absl::StatusOr<SharedTile> tile = EstimateSharedTile(p, st);
      ASSERT_TRUE(tile.ok()) << tile.status();
      EXPECT_EQ(tile->row() % lanes, 0) << p.ToString();
      if (stage.storage_align_factor != 0) {  // the tile's rows, and even
        EXPECT_EQ(stage.storage_align_axis, tile->RowDim() - 1) << p.ToString();
        EXPECT_EQ(tile->extents[tile->RowDim()] % 2, 0) << p.ToString();
      }
    }
    auto f = tir::Lower(p, "k");
    ASSERT_TRUE(f.ok()) << f.status();
    auto ptx = codegen::BuildKernelLibrary({*f}, cuda);
    ASSERT_TRUE(ptx.ok()) << ptx.status();
    vector_loads += ptx->find("ld.global.nc.v4.f32") != std::string::npos;
  }
  EXPECT_GT(lanes_seen[1], 0);
  EXPECT_GT(lanes_seen[4], 0);
  EXPECT_GT(vector_loads, 0);
  for (size_t i = 0; i < 4 && i < programs.size(); ++i) EXPECT_LT(GpuError(programs[i], 70 + i), 1e-3) << programs[i].ToString();
}

// Uniform draws of a 4,096 x 4,096 tile split five ways mostly break a budget (about one in
// five kept breaking one after 64 tries); the draw that keeps them by construction takes over
// then, so every program is within them: at most 8 virtual threads per thread, a block of 32
// to 1,024 threads, and at most 64 accumulators per thread, or half its share of the register
// file (32 in a block of 1,024: ptxas spilled 220 bytes of a 64-element tile there).
TEST(GpuSketches, LongAxesAreDrawnWithinThePerThreadBudgets) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda("cuda -arch=sm_90"));
  std::mt19937_64 rng(1);
  std::vector<State> programs = SampleInitialPopulation(testing::GemmDag(4096, 4096, 4096), target, 100, rng, nullptr);
  ASSERT_EQ(programs.size(), 100u);
  for (const State& p : programs) {
    const schedule::Stage& copy = p.stage(StageNamed(p, "C"));
    const int64_t virtual_threads = copy.node_of(1).extent, threads = copy.node_of(2).extent;
    int64_t accumulators = virtual_threads;
    for (int l = 3; l < static_cast<int>(copy.iters.size()); ++l) accumulators *= copy.node_of(l).extent;
    EXPECT_LE(virtual_threads, kMaxVirtualThreads) << p.ToString();
    EXPECT_LE(accumulators, target.AccumulatorsPerThread(threads)) << p.ToString();
    EXPECT_GE(threads, 32) << p.ToString();
    EXPECT_LE(threads, target.max_threads_per_block) << p.ToString();
  }
}

// The cost model's features read a GPU program's loop nest too (thread-bound loops, shared
// and local buffers): one row per store, all finite.
TEST(GpuFeatures, ADrawnProgramHasARowPerStore) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda());
  std::mt19937_64 rng(9);
  std::vector<State> programs = SampleInitialPopulation(testing::GemmDag(64, 64, 32), target, 1, rng, nullptr);
  ASSERT_EQ(programs.size(), 1u);
  auto f = tir::Lower(programs[0], "k");
  ASSERT_TRUE(f.ok()) << f.status();
  auto features = ExtractFeatures(*f);
  ASSERT_TRUE(features.ok()) << features.status();
  EXPECT_GE(features->rows, 5);  // accumulator init, update, the two fetches, the copy-out
  for (float v : features->values) EXPECT_TRUE(std::isfinite(v));
  // Every store runs inside the launch's block and thread loops: their extents are columns, and
  // the fetches store to shared memory.
  const std::vector<std::string>& names = StoreFeatureNames();
  auto column = [&](const std::string& name) {
    return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  const int block_x = column("blockIdx_x_len"), thread_x = column("threadIdx_x_len"), shared = column("scope_shared");
  ASSERT_LT(shared, static_cast<int>(names.size()));
  auto launch = tir::PlanGpuLaunches(*f, {target.max_threads_per_block, target.max_shared_bytes});
  ASSERT_TRUE(launch.ok() && launch->size() == 1u);
  int shared_stores = 0;
  for (int r = 0; r < features->rows; ++r) {
    EXPECT_FLOAT_EQ(features->row(r)[block_x], std::log2(1.0 + (*launch)[0].grid[0])) << r;
    EXPECT_FLOAT_EQ(features->row(r)[thread_x], std::log2(1.0 + (*launch)[0].block[0])) << r;
    shared_stores += features->row(r)[shared] == 1.0f;
  }
  EXPECT_EQ(shared_stores, 2);
}

// The bank-conflict column: the accumulator update of VirtualThreadGemm reads its tile of A down
// a column, 4 ways (tests/tir/shared_bank_conflicts_test.cc); padded rows take it to 1.
TEST(GpuFeatures, TheBankConflictColumnSeesWhatPaddingTheRowsChanges) {
  const std::vector<std::string>& names = StoreFeatureNames();
  const size_t column = std::find(names.begin(), names.end(), "shared_bank_conflict_ways") - names.begin();
  ASSERT_LT(column, names.size());
  auto ways = [&](const State& s) {
    auto f = tir::Lower(s, "k");
    EXPECT_TRUE(f.ok()) << f.status();
    auto features = ExtractFeatures(*f);
    EXPECT_TRUE(features.ok()) << features.status();
    std::vector<float> per_row;
    for (int r = 0; r < features->rows; ++r) per_row.push_back(features->row(r)[column]);
    return per_row;
  };
  State padded = testing::VirtualThreadGemm(64, 64, 64);
  ASSERT_TRUE(PadRows(&padded, testing::kSharedGemmA).ok());
  const std::vector<float> before = ways(testing::VirtualThreadGemm(64, 64, 64)), after = ways(padded);
  ASSERT_EQ(before.size(), after.size());
  const size_t update = std::max_element(before.begin(), before.end()) - before.begin();
  EXPECT_EQ(before[update], 4.0f);
  EXPECT_EQ(after[update], 1.0f);
  // The fetch's stores into the padded tile: a warp's 32 elements now straddle a row's padding,
  // 2 ways where they were 1 (once per step along k; the update reads 16 times per step).
  EXPECT_EQ(*std::max_element(after.begin(), after.end()), 2.0f);
}

// Over drawn GEMMs of 1,024^3, the same program with no padded tile and with every tile padded.
// A warp reads the tile of A down a column (its thread rows, register tiles apart): padded rows
// take those conflicts away or lower them, never raise them. It reads the tile of B along one
// row, where padding changes nothing; its conflicts (a thread's register tile several words
// wide) are the tile sizes' to avoid, through the cost model's column. At seed 23: of 16
// conflicted reads of A, 13 become conflict-free; 14 of B stay as they were.
TEST(GpuFeatures, PaddedRowsTakeConflictsOutOfTheColumnReadsOfDrawnGemms) {
  const SearchTarget target = SearchTarget::FromTarget(Cuda("cuda -arch=sm_90"));
  std::mt19937_64 rng(23);
  std::vector<State> programs = SampleInitialPopulation(testing::GemmDag(1024, 1024, 1024), target, 32, rng, nullptr);
  ASSERT_GE(programs.size(), 24u);
  auto read_ways = [](const State& s) {
    auto f = tir::Lower(s, "k");
    EXPECT_TRUE(f.ok()) << f.status();
    std::map<std::string, int> most;  // per tile
    for (const tir::SharedAccess& a : tir::SharedBankConflicts(*f, f->body))
      if (!a.store) most[f->buffers[a.buffer].name] = std::max(most[f->buffers[a.buffer].name], a.ways);
    return most;
  };
  int conflicted = 0, fixed = 0;
  for (const State& p : programs) {
    std::vector<schedule::Step> steps;
    for (const schedule::Step& step : p.steps())
      if (!std::holds_alternative<schedule::StorageAlignStep>(step)) steps.push_back(step);
    absl::StatusOr<State> plain = ReplaySteps(p.original_dag(), steps);
    ASSERT_TRUE(plain.ok()) << plain.status();
    State padded = *plain;
    for (int st = 0; st < static_cast<int>(padded.stages().size()); ++st)
      if (HasPaddableRows(padded, st)) { ASSERT_TRUE(PadRows(&padded, st).ok()); }
    std::map<std::string, int> before = read_ways(*plain), after = read_ways(padded);
    ASSERT_EQ(before.size(), 2u) << plain->ToString();
    EXPECT_LE(after["A.shared"], before["A.shared"]) << plain->ToString();
    EXPECT_EQ(after["B.shared"], before["B.shared"]) << plain->ToString();
    conflicted += before["A.shared"] > 1;
    fixed += before["A.shared"] > 1 && after["A.shared"] == 1;
  }
  EXPECT_GT(conflicted, 0);
  EXPECT_GT(fixed, conflicted / 2) << fixed << " of " << conflicted;
}

// Drawn programs are kernels the GPU toolchain accepts: PTX from LLVM's NVPTX backend that
// ptxas assembles.
TEST(GpuSampledPrograms, CompileToPtxThatAssembles) {
  const codegen::Target cuda = Cuda("cuda -arch=sm_80");
  const SearchTarget target = SearchTarget::FromTarget(cuda);
  std::mt19937_64 rng(5);
  std::vector<State> programs = SampleInitialPopulation(testing::GemmDag(128, 128, 64), target, 3, rng, nullptr);
  ASSERT_EQ(programs.size(), 3u);
  std::vector<std::string> ptx;
  for (size_t p = 0; p < programs.size(); ++p) {
    auto f = tir::Lower(programs[p], "gemm" + std::to_string(p));
    ASSERT_TRUE(f.ok()) << f.status();
    auto library = codegen::BuildKernelLibrary({*f}, cuda);
    ASSERT_TRUE(library.ok()) << library.status() << "\n" << programs[p].ToString();
    EXPECT_NE(library->find("bar.sync"), std::string::npos) << *library;
    ptx.push_back(*library);
  }
  const std::string ptxas = testing::FindPtxas();
  if (ptxas.empty()) GTEST_SKIP() << testing::kNoPtxasReason;  // only the assembly (tests/common/ptxas.h)
  for (const std::string& p : ptx) EXPECT_EQ(testing::AssemblePtx(ptxas, p, "sm_80"), "") << p;
}

// A drawn GEMM's register tile is indexed by constants: the reduce loops run outside the
// tile's loops, which annotation unrolls in X.local as in the copy-out (whatever auto-unroll
// drew), so the PTX keeps the accumulators in registers, with no .local array, whatever the
// virtual threads (each with its own tile). Every draw of 48 is checked. Before X.local's tile
// loops were unrolled, only draws auto-unrolled at 64 or 512 steps were free of .local arrays.
TEST(GpuSampledPrograms, AnUnrolledRegisterTileStaysInRegisters) {
  const codegen::Target cuda = Cuda("cuda -arch=sm_80");
  const SearchTarget target = SearchTarget::FromTarget(cuda);
  std::mt19937_64 rng(12);
  int checked = 0, with_virtual_threads = 0;
  for (const State& p : SampleInitialPopulation(testing::GemmDag(128, 128, 64), target, 48, rng, nullptr)) {
    ASSERT_GE(StageNamed(p, "C.local"), 0) << p.ToString();
    auto f = tir::Lower(p, "gemm");
    ASSERT_TRUE(f.ok()) << f.status();
    auto ptx = codegen::BuildKernelLibrary({*f}, cuda);
    ASSERT_TRUE(ptx.ok()) << ptx.status();
    EXPECT_EQ(ptx->find(".local"), std::string::npos) << p.ToString();
    ++checked;
    with_virtual_threads += p.stage(StageNamed(p, "C")).node_of(1).extent > 1;
  }
  EXPECT_EQ(checked, 48);
  EXPECT_GE(with_virtual_threads, 10) << "too few draws with virtual threads";
}

}  // namespace
}  // namespace tunefarm::tuner
