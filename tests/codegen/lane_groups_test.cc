// Lane groups (compiler/codegen/lane_groups.h): a vectorized loop narrower than a register runs
// several iterations of the loop around it per chunk. Each kernel here is checked against a plain
// C++ loop in the original order, through the JIT and a .so; the plan is checked to widen exactly
// the loops whose iterations are independent, and to say why it leaves the others.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "compiler/codegen/host_target.h"
#include "compiler/codegen/lane_groups.h"
#include "compiler/codegen/vector_plan.h"
#include "tests/codegen/kernel_runner.h"

namespace tunefarm::codegen::testing {
namespace {

using te::DType;
using te::Expr;
using tir::ForKind;
using tir::Stmt;

constexpr DType kF32 = DType::kFloat32;
// 4 lanes leave part of a register idle on every x86 host (8 or 16 floats) and on NEON's
// neighbours; the groups are 2 (AVX2) or 4 (AVX-512).
constexpr int64_t kLanes = 4;

int HostGroups(const Stmt& outer) { return PlanLaneGroups(*outer, HostTarget()).groups; }

std::string HostReason(const Stmt& outer) { return PlanLaneGroups(*outer, HostTarget()).reason; }

class LaneGroupsTest : public ::testing::TestWithParam<std::tuple<Backend, ForKind>> {
 protected:
  Backend backend() const { return std::get<0>(GetParam()); }
  ForKind outer_kind() const { return std::get<1>(GetParam()); }
};

// A conv-like register tile: out[p][c] += in[p*stride + k] * w[k][c] for every k, with the
// pixel loop p around the channel block c. Each group of lanes is one pixel: the input is one
// value per group, the weights one block repeated over the groups, out one contiguous vector.
TEST_P(LaneGroupsTest, TileWithPixelsAroundAChannelBlockMatchesTheReference) {
  const int64_t pixels = 6, depth = 5, stride = 3, in_size = pixels * stride + depth;
  Expr p0 = te::MakeVar("p0", 1), c0 = te::MakeVar("c0", 2);
  Expr k = te::MakeVar("k", 3), p = te::MakeVar("p", 4), c = te::MakeVar("c", 5);
  Stmt update = tir::For(p, pixels, outer_kind(),
                         tir::For(c, kLanes, ForKind::kVectorized,
                                  tir::Store(2, p * kLanes + c,
                                             te::Load(kF32, 2, {p * kLanes + c}) +
                                                 te::Load(kF32, 0, {p * stride + k}) * te::Load(kF32, 1, {k * kLanes + c}))));
  ASSERT_GT(HostGroups(update), 1) << HostReason(update);
  Stmt body = tir::Seq({
      tir::For(p0, pixels, outer_kind(),
               tir::For(c0, kLanes, ForKind::kVectorized, tir::Store(2, p0 * kLanes + c0, te::FloatImm(kF32, 0)))),
      tir::For(k, depth, ForKind::kSerial, update),
  });
  tir::PrimFunc f = MakeFunc("tile",
                             {Arg("in", kF32, {in_size}), Arg("w", kF32, {depth * kLanes}),
                              Arg("out", kF32, {pixels * kLanes}, tir::ArgRole::kOutput)},
                             3, body);
  auto runner = KernelRunner::Create({f}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> in(in_size), w(depth * kLanes), out(pixels * kLanes);
  FillRandom(in, 1);
  FillRandom(w, 2);
  ASSERT_EQ(runner->Run("tile", {in.data(), w.data(), out.data()}, 1), 0);
  for (int64_t pi = 0; pi < pixels; ++pi) {
    for (int64_t ci = 0; ci < kLanes; ++ci) {
      float ref = 0;
      for (int64_t ki = 0; ki < depth; ++ki) ref += in[pi * stride + ki] * w[ki * kLanes + ci];
      ASSERT_NEAR(out[pi * kLanes + ci], ref, 1e-5) << pi << "," << ci;
    }
  }
  // The widened chunk is one vector of groups x 4 lanes.
  auto ir = EmitLlvmIr({f}, HostTarget(), /*optimized=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  const std::string wide = "<" + std::to_string(HostGroups(update) * kLanes) + " x float>";
  EXPECT_NE(ir->find(wide), std::string::npos) << *ir;
}

// out[p][c] = in[p*9 + c] * 2: one contiguous run per group, joined into one vector.
TEST_P(LaneGroupsTest, RunsPerGroupAreJoined) {
  const int64_t rows = 8, pitch = 9;
  Expr p = te::MakeVar("p", 1), c = te::MakeVar("c", 2);
  Stmt body = tir::For(p, rows, outer_kind(),
                       tir::For(c, kLanes, ForKind::kVectorized,
                                tir::Store(1, p * kLanes + c, te::Load(kF32, 0, {p * pitch + c}) * te::FloatImm(kF32, 2))));
  ASSERT_GT(HostGroups(body), 1) << HostReason(body);
  tir::PrimFunc f = MakeFunc("rows", {Arg("in", kF32, {rows * pitch}), Arg("out", kF32, {rows * kLanes}, tir::ArgRole::kOutput)},
                             2, body);
  auto runner = KernelRunner::Create({f}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> in(rows * pitch), out(rows * kLanes);
  FillRandom(in, 3);
  ASSERT_EQ(runner->Run("rows", {in.data(), out.data()}, 1), 0);
  for (int64_t pi = 0; pi < rows; ++pi)
    for (int64_t ci = 0; ci < kLanes; ++ci) ASSERT_EQ(out[pi * kLanes + ci], in[pi * pitch + ci] * 2) << pi << "," << ci;
}

// acc[c] += in[k][c]: the loop around the block is a reduction, whose iterations all write the
// same block. It must not be widened, and the sum must come out right.
TEST_P(LaneGroupsTest, AReductionAroundTheBlockIsNotWidened) {
  const int64_t depth = 7;
  Expr c0 = te::MakeVar("c0", 1), k = te::MakeVar("k", 2), c = te::MakeVar("c", 3);
  Stmt reduce = tir::For(k, depth, outer_kind(),
                         tir::For(c, kLanes, ForKind::kVectorized,
                                  tir::Store(1, c, te::Load(kF32, 1, {c}) + te::Load(kF32, 0, {k * kLanes + c}))));
  EXPECT_EQ(HostGroups(reduce), 0);
  EXPECT_NE(HostReason(reduce).find("not contiguous across the groups"), std::string::npos) << HostReason(reduce);
  Stmt body = tir::Seq({tir::For(c0, kLanes, ForKind::kVectorized, tir::Store(1, c0, te::FloatImm(kF32, 0))), reduce});
  tir::PrimFunc f = MakeFunc("sum", {Arg("in", kF32, {depth * kLanes}), Arg("acc", kF32, {kLanes}, tir::ArgRole::kOutput)},
                             2, body);
  auto runner = KernelRunner::Create({f}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> in(depth * kLanes), acc(kLanes);
  FillRandom(in, 4);
  ASSERT_EQ(runner->Run("sum", {in.data(), acc.data()}, 1), 0);
  for (int64_t ci = 0; ci < kLanes; ++ci) {
    float ref = 0;
    for (int64_t ki = 0; ki < depth; ++ki) ref += in[ki * kLanes + ci];
    EXPECT_NEAR(acc[ci], ref, 1e-5) << ci;
  }
}

// out[p][c] = out[0][c] + 1 reads what iteration p = 0 wrote: iterations depend on each other,
// so the loop runs one iteration at a time and row p holds the original row 0 + 1 (row 0: + 1).
TEST_P(LaneGroupsTest, ALoadOfAnotherIterationsStoreIsNotWidened) {
  const int64_t rows = 8;
  Expr p = te::MakeVar("p", 1), c = te::MakeVar("c", 2);
  Stmt body = tir::For(p, rows, outer_kind(),
                       tir::For(c, kLanes, ForKind::kVectorized,
                                tir::Store(0, p * kLanes + c, te::Load(kF32, 0, {c}) + te::FloatImm(kF32, 1))));
  EXPECT_EQ(HostGroups(body), 0);
  EXPECT_NE(HostReason(body).find("loaded at another index"), std::string::npos) << HostReason(body);
  tir::PrimFunc f = MakeFunc("chain", {Arg("out", kF32, {rows * kLanes}, tir::ArgRole::kOutput)}, 1, body);
  auto runner = KernelRunner::Create({f}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> out(rows * kLanes);
  FillRandom(out, 5);
  std::vector<float> first(out.data(), out.data() + kLanes);
  ASSERT_EQ(runner->Run("chain", {out.data()}, 1), 0);
  for (int64_t ci = 0; ci < kLanes; ++ci) {
    EXPECT_EQ(out[ci], first[ci] + 1) << ci;
    for (int64_t pi = 1; pi < rows; ++pi) EXPECT_EQ(out[pi * kLanes + ci], first[ci] + 2) << pi << "," << ci;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, LaneGroupsTest,
                         ::testing::ValuesIn(EveryBackendWith({ForKind::kSerial, ForKind::kUnrolled})),
                         [](const auto& info) { return BackendAndLoopName(info.param); });

TEST(LaneGroupsPlan, SaysWhyALoopIsNotWidened) {
  Expr p = te::MakeVar("p", 1), c = te::MakeVar("c", 2);
  auto plan = [&](Stmt inner_body, int64_t extent = 8, int64_t lanes = kLanes) {
    return PlanLaneGroups(*tir::For(p, extent, ForKind::kSerial, tir::For(c, lanes, ForKind::kVectorized, inner_body)),
                          HostTarget());
  };
  Stmt copy = tir::Store(1, p * kLanes + c, te::Load(kF32, 0, {p * kLanes + c}));
  EXPECT_GT(plan(copy).groups, 1) << plan(copy).reason;
  // A condition on the outer loop.
  EXPECT_NE(plan(tir::IfThenElse(te::Lt(p, 3), copy)).reason.find("if condition"), std::string::npos);
  // Transposed: the groups' stores interleave.
  EXPECT_NE(plan(tir::Store(1, c * 8 + p, te::FloatImm(kF32, 1))).reason.find("not contiguous"), std::string::npos);
  // Stored at two indices.
  EXPECT_NE(plan(tir::Seq({copy, tir::Store(1, p * kLanes + c + 32, te::FloatImm(kF32, 0))})).reason.find("two indices"),
            std::string::npos);
  // Fewer iterations than groups, and a block that already fills a register.
  EXPECT_NE(plan(copy, 1).reason.find("less than"), std::string::npos);
  const int native = PlanVectorLoop(*tir::For(c, kLanes, ForKind::kVectorized, copy), HostTarget()).native_lanes;
  EXPECT_NE(plan(tir::Store(1, p * native + c, te::FloatImm(kF32, 1)), 8, native).reason.find("idle"), std::string::npos);
  // Not a loop around a vector loop.
  EXPECT_NE(PlanLaneGroups(*tir::For(p, 8, ForKind::kSerial, copy), HostTarget()).reason.find("not a vectorized loop"),
            std::string::npos);
}

TEST(LaneGroupsPlan, AffineCoefficients) {
  Expr i = te::MakeVar("i", 1), j = te::MakeVar("j", 2);
  EXPECT_EQ(AffineCoefficient(i * 8 + j, 1), 8);
  EXPECT_EQ(AffineCoefficient(i * 8 + j, 2), 1);
  EXPECT_EQ(AffineCoefficient(te::IntImm(te::kIndexType, 3) * (i - j * 2), 2), -6);
  EXPECT_EQ(AffineCoefficient(j * 5, 1), 0);
  EXPECT_FALSE(AffineCoefficient(i * j, 1).has_value());
  EXPECT_FALSE(AffineCoefficient(i / 2, 1).has_value());
  EXPECT_FALSE(AffineCoefficient(te::Load(te::kIndexType, 0, {i}), 1).has_value());
}

}  // namespace
}  // namespace tunefarm::codegen::testing
