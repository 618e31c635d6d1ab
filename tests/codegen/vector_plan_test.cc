// Vectorized loops (compiler/codegen/vector_plan.h): how a loop is cut into chunks of lanes, and
// that every extent, cut so, computes each element exactly once.
#include <gtest/gtest.h>

#include <string>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/host_target.h"
#include "compiler/codegen/vector_plan.h"
#include "tests/codegen/kernel_runner.h"

namespace tunefarm::codegen::testing {
namespace {

// out[i] = out[i] + in[i] over a vectorized loop of `extent` lanes: a lane that two chunks
// covered would be added twice, one that none covered not at all.
tir::PrimFunc AccumulateFunc(int64_t extent) {
  const te::DType f32 = te::DType::kFloat32;
  const te::Expr i = te::MakeVar("i", 1);
  return MakeFunc("acc", {Arg("in", f32, {extent}), Arg("out", f32, {extent}, tir::ArgRole::kOutput)}, 2,
                  tir::For(i, extent, tir::ForKind::kVectorized,
                           tir::Store(1, i, te::Load(f32, 1, {i}) + te::Load(f32, 0, {i}))));
}

// A chunk is a power of two registers, or less than one: LLVM splits a <48 x float> lane by
// lane inside an unrolled register tile.
TEST(VectorPlan, ChunksAreAPowerOfTwoRegisters) {
  EXPECT_EQ(PowerOfTwoChunk(48, 16), 32);  // then 16
  EXPECT_EQ(PowerOfTwoChunk(56, 16), 32);  // then 16 and 8
  EXPECT_EQ(PowerOfTwoChunk(24, 8), 16);
  EXPECT_EQ(PowerOfTwoChunk(64, 16), 64);
  EXPECT_EQ(PowerOfTwoChunk(16, 16), 16);
  EXPECT_EQ(PowerOfTwoChunk(12, 16), 12);  // within one register: as it is
  EXPECT_EQ(PowerOfTwoChunk(5, 8), 5);

  const absl::StatusOr<Target> parsed = Target::Parse("llvm -mtriple=x86_64-linux-gnu -mcpu=icelake-server");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const Target& avx512 = *parsed;
  auto plan = [&](int64_t extent) { return PlanVectorLoop(*AccumulateFunc(extent).body, avx512); };
  EXPECT_EQ(plan(48).chunk_lanes, 32);
  EXPECT_EQ(plan(48).num_full_chunks, 1);
  EXPECT_EQ(plan(48).tail_lanes, 16);
  EXPECT_EQ(plan(200).chunk_lanes, 64);  // the most a chunk holds: 4 registers
  EXPECT_EQ(plan(200).num_full_chunks, 3);
  EXPECT_EQ(plan(200).tail_lanes, 8);

  // 56 lanes: three chunks of 32, 16 and 8, none of 56 or 24.
  absl::StatusOr<std::string> ir = EmitLlvmIr({AccumulateFunc(56)}, avx512, /*optimized=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  for (const char* chunk : {"load <32 x float>", "load <16 x float>", "load <8 x float>"})
    EXPECT_NE(ir->find(chunk), std::string::npos) << chunk << "\n" << *ir;
  for (const char* chunk : {"<56 x float>", "<24 x float>", "<48 x float>"})
    EXPECT_EQ(ir->find(chunk), std::string::npos) << chunk << "\n" << *ir;
}

// Every extent from 1 to 130 (full chunks, tails of one to three pieces, sub-register loops) on
// this host: each element accumulated exactly once.
TEST(VectorPlan, EveryExtentCoversEachLaneOnce) {
  for (int64_t extent = 1; extent <= 130; ++extent) {
    tir::PrimFunc f = AccumulateFunc(extent);
    auto runner = KernelRunner::Create({f}, Backend::kJit);
    ASSERT_NE(runner, nullptr) << extent;
    Array<float> in(extent), out(extent);
    for (int64_t i = 0; i < extent; ++i) in[i] = static_cast<float>(i + 1), out[i] = 1000.0f;
    ASSERT_EQ(runner->Run("acc", {in.data(), out.data()}, 1), 0) << extent;
    for (int64_t i = 0; i < extent; ++i) ASSERT_EQ(out[i], 1001.0f + static_cast<float>(i)) << extent << " lanes, lane " << i;
  }
}

}  // namespace
}  // namespace tunefarm::codegen::testing
