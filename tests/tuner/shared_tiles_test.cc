// The shared tiles of GPU programs, estimated from their split lengths before lowering
// (tuner/search_space/shared_tiles.h), against what lowering allocates: for GEMMs whose tiles
// do and do not divide, a conv with padding, and every tiled task of ResNet-18, MobileNetV2
// and the transformer encoder (strided and depthwise convs, batched matmuls), every drawn
// program's every shared tile has the lowered buffer's shape and bytes, padded or not.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/strings.h"
#include "compiler/codegen/host_target.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/matmul.h"
#include "compiler/tir/lower.h"
#include "tests/common/test_dags.h"
#include "tuner/search_space/gpu_sketch_rules.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/random_annotation.h"
#include "tuner/search_space/search_target.h"
#include "tuner/search_space/shared_tiles.h"
#include "tuner/search_space/sketch_rules.h"
#include "tuner/tuning_task.h"

namespace tunefarm::tuner {
namespace {

SearchTarget Gpu() { return SearchTarget::FromTarget(codegen::Target::Parse("cuda -arch=sm_90").value()); }

// Draws `draws` programs of every sketch of `dag` (shared memory unchecked: tir::Lower does not
// plan launches) and compares each shared tile with its lowered buffer: equal when the estimate
// says it is exact; else its rows equal and its bytes at least the lowered ones. Returns the
// exact tiles seen.
int CheckDrawnTiles(const std::shared_ptr<const te::ComputeDag>& dag, int draws, uint64_t seed, const std::string& what) {
  const SearchTarget target = Gpu();
  std::mt19937_64 rng(seed);
  int tiles = 0;
  for (const schedule::State& sketch : GenerateSketches(dag, target)) {
    for (int d = 0; d < draws; ++d) {
      absl::StatusOr<schedule::State> p = AnnotateRandomly(sketch, target, rng);
      if (!p.ok()) continue;  // annotation's own refusals are not this test's
      absl::StatusOr<tir::PrimFunc> f = tir::Lower(*p, "k");
      EXPECT_TRUE(f.ok()) << what << ": " << f.status();
      if (!f.ok()) continue;
      for (int stage = 0; stage < static_cast<int>(p->stages().size()); ++stage) {
        if (p->stage(stage).scope != "shared") continue;
        const std::string name = p->dag().tensor(p->stage(stage).tensor_id).name;
        const tir::Buffer* lowered = nullptr;
        for (const tir::Buffer& b : f->buffers)
          if (b.name == name && b.scope == tir::BufferScope::kShared) lowered = &b;
        if (lowered == nullptr) {
          ADD_FAILURE() << what << ": no shared buffer " << name;
          continue;
        }
        absl::StatusOr<SharedTile> tile = EstimateSharedTile(*p, stage);
        if (!tile.ok()) {
          ADD_FAILURE() << what << ": " << tile.status() << "\n" << p->ToString();
          continue;
        }
        const std::vector<int64_t>& allocated = tile->allocated;
        if (!tile->exact) {
          EXPECT_EQ(allocated.back(), lowered->shape.back()) << what << ", " << name << "\n" << p->ToString();
          EXPECT_GE(tile->bytes, lowered->NumBytes()) << what << ", " << name << "\n" << p->ToString();
          continue;
        }
        EXPECT_EQ(allocated, lowered->shape) << what << ", " << name << "\n" << p->ToString();
        EXPECT_EQ(tile->bytes, lowered->NumBytes()) << what << ", " << name;
        ++tiles;
      }
    }
  }
  return tiles;
}

TEST(SharedTiles, EstimatesMatchLoweredBuffersOfGemmsAndConvs) {
  EXPECT_GE(CheckDrawnTiles(testing::GemmDag(64, 48, 32), 40, 1, "GEMM 64x48x32"), 80);
  EXPECT_GE(CheckDrawnTiles(testing::GemmDag(24, 20, 18), 40, 2, "GEMM 24x20x18"), 80);
  EXPECT_GE(CheckDrawnTiles(testing::GemmDag(4096, 4096, 4096), 40, 3, "GEMM 4096^3"), 80);
  EXPECT_GE(CheckDrawnTiles(testing::ConvBiasReluDag(8, 10, 6), 40, 4, "conv 8x10x10 pad 1"), 80);
}

// A grouped conv's input channel is ff / (K/G) * (C/G) + rc: not linear in the tile's loops,
// so the estimate takes every channel and says it is not exact (lowering, knowing the block's
// offset, often bounds it). Then the bytes are an upper bound, the rows still exact, and the
// shared-memory check leaves the program to lowering instead of redrawing tiles that fit (a
// review found a ResNeXt-like conv's draws about 9 times slower for that).
TEST(SharedTiles, AGroupedConvsChannelsAreAnUpperBoundThatTheFitCheckLeavesToLowering) {
  EXPECT_GE(CheckDrawnTiles(testing::GroupedConvDag(16, 16, 2, 16), 40, 5, "grouped conv g=2"), 0);
  EXPECT_GE(CheckDrawnTiles(testing::GroupedConvDag(32, 64, 32, 14), 40, 6, "depthwise conv x2"), 0);
  const SearchTarget target = Gpu();
  std::mt19937_64 rng(7);
  int inexact = 0;
  for (const schedule::State& sketch : GenerateSketches(testing::GroupedConvDag(16, 16, 2, 16), target))
    for (int d = 0; d < 20; ++d) {
      absl::StatusOr<schedule::State> p = AnnotateRandomly(sketch, target, rng);
      ASSERT_TRUE(p.ok()) << p.status();
      for (int stage = 0; stage < static_cast<int>(p->stages().size()); ++stage) {
        absl::StatusOr<SharedTile> tile = EstimateSharedTile(*p, stage);
        if (!tile.ok() || tile->exact) continue;
        ++inexact;
        EXPECT_FALSE(SharedBytesOfTile(*p, p->stage(stage).attach_stage).ok());
      }
    }
  EXPECT_GT(inexact, 0);
}

// A device whose blocks may have 96 KiB of shared memory still gets static arrays of at most
// 48 KiB (dynamic shared memory is not built): annotation draws within the smaller.
TEST(SharedTiles, DrawsKeepWithinWhatStaticSharedArraysHold) {
  const SearchTarget big = SearchTarget::FromTarget(
      codegen::Target::Parse("cuda -arch=sm_90 -max-shared-memory-per-block=98304").value());
  ASSERT_EQ(big.max_shared_bytes, 98304);
  std::mt19937_64 rng(3);
  SampleStats stats;
  EXPECT_EQ(SampleInitialPopulation(testing::GemmDag(4096, 4096, 4096), big, 128, rng, &stats).size(), 128u);
  EXPECT_EQ(stats.invalid_total(), 0) << stats.Summary();
}

TEST(SharedTiles, EstimatesMatchLoweredBuffersOfModelTasks) {
  build::BuildOptions options;
  options.target = codegen::HostTarget();
  options.threads = 1;
  int tiles = 0;
  for (const char* model : {"resnet18", "mobilenet_v2", "transformer_encoder"}) {
    auto tasks = ExtractTasksFromModel(StrCat(TUNEFARM_SHARED_DIR, "/models/", model, ".onnx"), {}, options);
    ASSERT_TRUE(tasks.ok()) << tasks.status();
    for (size_t t = 0; t < tasks->size(); ++t)
      tiles += CheckDrawnTiles((*tasks)[t].dag, 3, t, StrCat(model, " task ", t));
  }
  EXPECT_GE(tiles, 100);
}

// GPU annotation draws with the tiles' shapes known: tile sizes whose tiles fit the block's
// shared memory (before, 1,030 of 1,286 draws of GEMM 4096^3 were refused by lowering for
// overflowing it), fetch lanes that divide the tile's rows (before, 233 of 342 multi-lane
// fetches of the conv had rows the lanes do not divide, so they moved one element at a time;
// and its input tile's fetch, a select through the padding, moves one lane whatever its rows),
// and padding only for rows of even length, within the shared memory (before, 129 of 241
// padded conv tiles had odd rows, which padding leaves as they are: duplicates of unpadded
// programs).
TEST(SharedTiles, AnnotationDrawsLanesPaddingAndTileSizesForTheTiles) {
  for (const auto& [name, dag] : std::vector<std::pair<std::string, std::shared_ptr<const te::ComputeDag>>>{
           {"GEMM 4096^3", testing::GemmDag(4096, 4096, 4096)}, {"conv 64x56x56", testing::ConvBiasReluDag(64, 56, 64)}}) {
    std::mt19937_64 rng(1);
    SampleStats stats;
    const std::vector<schedule::State> programs = SampleInitialPopulation(dag, Gpu(), 256, rng, &stats);
    ASSERT_EQ(programs.size(), 256u) << name << ": " << stats.Summary();
    EXPECT_EQ(stats.invalid_total(), 0) << name << ": " << stats.Summary();
    int multi_lane = 0, padded = 0, selects = 0;
    for (const schedule::State& p : programs) {
      for (int stage = 0; stage < static_cast<int>(p.stages().size()); ++stage) {
        const schedule::Stage& st = p.stage(stage);
        if (st.scope != "shared") continue;
        absl::StatusOr<SharedTile> tile = EstimateSharedTile(p, stage);
        ASSERT_TRUE(tile.ok()) << tile.status();
        const int64_t lanes = st.node_of(static_cast<int>(st.iters.size()) - 1).extent;
        EXPECT_EQ(tile->row() % lanes, 0) << name << ": " << lanes << " lanes, rows of " << tile->row() << "\n"
                                          << p.ToString();
        EXPECT_TRUE(FetchLanesFit(*tile, lanes)) << name << ": " << lanes << " lanes\n" << p.ToString();
        multi_lane += lanes > 1;
        // The conv's input tile copies its padding stage, inlined into the fetch: a select a
        // lane, which code generation never moves several at once; its weights are plain loads.
        const bool copies_padding = p.dag().tensor(st.tensor_id).name.find("pad") != std::string::npos;
        EXPECT_EQ(tile->plain_copy, !copies_padding) << p.dag().tensor(st.tensor_id).name;
        selects += !tile->plain_copy;
        if (st.storage_align_factor == 0) continue;
        ++padded;
        const int64_t row = tile->extents[tile->RowDim()];
        EXPECT_EQ(row % 2, 0) << name << ": padded rows of odd length " << row;
        EXPECT_EQ(st.storage_align_axis, tile->RowDim() - 1) << name;
      }
    }
    if (name == "conv 64x56x56")
      EXPECT_EQ(multi_lane, 0);  // its weight tiles' rows run along kw (3 or 1), its input fetches are selects
    else
      EXPECT_GT(multi_lane, 100) << name;  // of 512 tiles
    EXPECT_GT(padded, 50) << name;
    EXPECT_EQ(selects, name == "conv 64x56x56" ? 256 : 0) << name;
  }
}

// Code generation moves several lanes at once for 4-byte elements only: a float64 GEMM's
// fetches get one lane each (before, they drew 2 or 4, which moved one by one: programs
// differing from others only in a loop split).
TEST(SharedTiles, FetchesOfEightByteElementsMoveOneLane) {
  te::DagBuilder b;
  auto a = b.Placeholder("A", te::DType::kFloat64, {64, 32});
  auto w = b.Placeholder("B", te::DType::kFloat64, {32, 64}, true);
  auto dag = b.Build({ops::Matmul(b, a, w, false, "C")});
  std::mt19937_64 rng(9);
  const std::vector<schedule::State> programs = SampleInitialPopulation(dag, Gpu(), 32, rng, nullptr);
  ASSERT_GE(programs.size(), 16u);
  int fetches = 0;
  for (const schedule::State& p : programs)
    for (const schedule::Stage& st : p.stages())
      if (st.scope == "shared") {
        EXPECT_EQ(st.node_of(static_cast<int>(st.iters.size()) - 1).extent, 1) << p.ToString();
        ++fetches;
      }
  EXPECT_EQ(fetches, 2 * static_cast<int>(programs.size()));
}

// A stage that is no gpu-tile shared tile is refused, not guessed.
TEST(SharedTiles, AStageThatIsNoTileIsRefused) {
  schedule::State s(testing::GemmDag(16, 16, 16));
  for (int stage = 0; stage < static_cast<int>(s.stages().size()); ++stage)
    EXPECT_EQ(EstimateSharedTile(s, stage).status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace tunefarm::tuner
