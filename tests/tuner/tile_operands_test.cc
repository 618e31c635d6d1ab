// TileOperandsOf (tuner/search_space/tile_operands.h): which axes of a GPU sketch's tile each
// operand of the tiled stage is indexed by, read through the cache stages the sketch added, and
// the loads per point a tile then costs.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/codegen/target.h"
#include "tests/common/test_dags.h"
#include "tuner/search_space/gpu_annotation.h"
#include "tuner/search_space/sketch_rules.h"
#include "tuner/search_space/tile_operands.h"
#include "tuner/search_space/tile_sizes.h"

namespace tunefarm::tuner {
namespace {

using Uses = std::vector<std::vector<bool>>;

// The operands of the GPU-tiled stage of `dag`'s first sketch.
TileOperands OperandsOfTheGpuTile(std::shared_ptr<const te::ComputeDag> dag) {
  const SearchTarget target = SearchTarget::FromTarget(codegen::Target::Parse("cuda -arch=sm_80").value());
  const std::vector<schedule::State> sketches = GenerateSketches(dag, target);
  EXPECT_FALSE(sketches.empty());
  if (sketches.empty()) return {};
  absl::StatusOr<std::vector<TunableSplit>> splits = FindTunableSplits(sketches.front());
  EXPECT_TRUE(splits.ok()) << splits.status();
  std::vector<size_t> steps;
  for (const TunableSplit& s : *splits)
    if (s.kind == schedule::IterKind::kSpace && s.parts == kGpuTiledSplitLengths) steps.push_back(s.step);
  absl::StatusOr<TileOperands> operands = TileOperandsOf(sketches.front(), steps);
  EXPECT_TRUE(operands.ok()) << operands.status();
  return operands.ok() ? *operands : TileOperands{};
}

// C[i, j] = A[i, k] B[k, j]: A is indexed by the rows, B by the columns; square tiles load least.
TEST(TileOperands, AGemmsOperandsEachUseOneAxis) {
  const TileOperands gemm = OperandsOfTheGpuTile(testing::GemmDag(64, 64, 64));
  EXPECT_EQ(gemm.uses, (Uses{{true, false}, {false, true}}));
  EXPECT_DOUBLE_EQ(gemm.LoadsPerPoint({1, 1}), 2);
  EXPECT_DOUBLE_EQ(gemm.LoadsPerPoint({4, 4}), 0.5);
  EXPECT_GT(gemm.LoadsPerPoint({2, 8}), gemm.LoadsPerPoint({4, 4}));
}

// A conv's (batch 1, not split) output channels index the weights only; its rows and columns
// the input only (through the inlined padding, and whatever the kernel offsets add).
TEST(TileOperands, AConvsChannelsIndexOnlyTheWeights) {
  const TileOperands conv = OperandsOfTheGpuTile(testing::ConvBiasReluDag(8, 14, 16));
  Uses uses = conv.uses;  // in the order of the operands' tensor ids
  std::sort(uses.begin(), uses.end());
  EXPECT_EQ(uses, (Uses{{false, true, true}, {true, false, false}}));
  EXPECT_DOUBLE_EQ(conv.LoadsPerPoint({2, 1, 2}), 1.0);   // 2 input + 2 weight loads, 4 points
  EXPECT_DOUBLE_EQ(conv.LoadsPerPoint({1, 2, 2}), 1.25);  // 4 input + 1 weight load
}

// A batched matmul's batch axis indexes every operand: tiling it saves no load.
TEST(TileOperands, ABatchAxisIndexesEveryOperand) {
  te::DagBuilder b;
  auto a = b.Placeholder("a", te::DType::kFloat32, {4, 32, 16});
  auto w = b.Placeholder("w", te::DType::kFloat32, {4, 16, 24});
  const TileOperands bmm = OperandsOfTheGpuTile(b.Build({ops::BatchMatmul(b, a, w, {}).value()}));
  EXPECT_EQ(bmm.uses, (Uses{{true, true, false}, {true, false, true}}));
  EXPECT_DOUBLE_EQ(bmm.LoadsPerPoint({2, 1, 1}), bmm.LoadsPerPoint({1, 1, 1}));
}

// Steps that are not splits of an original space axis of one stage are refused by name.
TEST(TileOperands, RefusesStepsThatAreNotSplitsOfAnOriginalAxis) {
  schedule::State s(testing::GemmDag(16, 16, 16));
  const int c = static_cast<int>(s.stages().size()) - 1;
  ASSERT_TRUE(s.Fuse(c, {0, 1}).ok());
  ASSERT_TRUE(s.Split(c, 0, {4}).ok());
  auto message = [&](std::vector<size_t> steps) {
    absl::StatusOr<TileOperands> o = TileOperandsOf(s, steps);
    return o.ok() ? std::string("ok") : std::string(o.status().message());
  };
  EXPECT_NE(message({1}).find("does not split an original space axis"), std::string::npos) << message({1});
  EXPECT_NE(message({0}).find("is not a split"), std::string::npos) << message({0});
  EXPECT_NE(message({2}).find("no schedule step 2"), std::string::npos) << message({2});
}

}  // namespace
}  // namespace tunefarm::tuner
