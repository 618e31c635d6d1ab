// The uint8 x int8 product (ops/int8_matmul.h) against its definition on random data: unscheduled,
// with the default schedule, and in the schedule that makes codegen emit VNNI (16 lanes vectorized), compiled
// for targets with and without VNNI; and the matcher that finds the four-way dot products
// (codegen/dot_product.h).
#include <gtest/gtest.h>

#include <regex>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/dot_product.h"
#include "compiler/ops/int8_matmul.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

using In = const std::vector<Tensor>&;

// B [K, N] -> [N/16, K/4, 16, 4], the layout the op reads.
HostTensor Pack(const HostTensor& b) {
  const int64_t k = b.shape[0], n = b.shape[1];
  HostTensor packed(DType::kInt8, {n / 16, k / 4, 16, 4});
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c) packed.at({c / 16, r / 4, c % 16, r % 4}) = b.at({r, c});
  return packed;
}

// a [..., M, K] x b [K, N] in int32, from the definition, in the op's blocked shape
// [..., M, N/16, 16] (the same order of elements as [..., M, N]).
HostTensor Reference(const HostTensor& a, const HostTensor& b) {
  const int64_t k = b.shape[0], n = b.shape[1], rows = a.size() / k;
  Shape shape(a.shape.begin(), a.shape.end() - 1);
  shape.insert(shape.end(), {n / 16, 16});
  HostTensor out(DType::kInt32, shape);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t sum = 0;
      for (int64_t r = 0; r < k; ++r)
        sum += static_cast<int64_t>(a.data[i * k + r]) * static_cast<int64_t>(b.data[r * n + j]);
      out.data[i * n + j] = StoreAs(DType::kInt32, static_cast<double>(sum));
    }
  return out;
}

OpFn Product() {
  return [](DagBuilder& b, In in) { return MatmulU8S8(b, in[0], in[1]); };
}

TEST(Int8Matmul, UnscheduledMatchesTheDefinition) {
  const HostTensor a = Random(DType::kUInt8, {2, 3, 12}, 1, 0, 255);
  const HostTensor b = Random(DType::kInt8, {12, 32}, 2, -128, 127);
  const HostTensor want = Reference(a, b);
  EXPECT_TRUE(AllClose(RunOp({a, Pack(b)}, Product()), want));
  auto dag = BuildOpDag({a, Pack(b)}, Product());
  ASSERT_TRUE(dag.ok()) << dag.status();
  auto compiled = RunSharedObject(**dag, {a, Pack(b)});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(AllClose(*compiled, want));
}

TEST(Int8Matmul, RefusesShapesAndDTypesThatDoNotFit) {
  EXPECT_FALSE(PackedInt8WeightShape({6, 32}).ok());   // K not a multiple of 4
  EXPECT_FALSE(PackedInt8WeightShape({8, 24}).ok());   // N not a multiple of 16
  EXPECT_FALSE(PackedInt8WeightShape({8, 16, 1}).ok());  // not 2-D
  EXPECT_EQ(*PackedInt8WeightShape({8, 32}), (Shape{2, 2, 16, 4}));
  const HostTensor packed = Pack(Random(DType::kInt8, {8, 16}, 3, -128, 127));
  absl::Status s = BuildStatus({Random(DType::kInt8, {2, 8}, 4, -128, 127), packed}, Product());
  EXPECT_NE(s.message().find("expected uint8"), std::string::npos) << s;
  s = BuildStatus({Random(DType::kUInt8, {2, 12}, 5, 0, 255), packed}, Product());
  EXPECT_NE(s.message().find("K = 12"), std::string::npos) << s;
}

// The product with its 16 lanes vectorized inside the k loop: every lane reads the same four
// bytes of A and its own four bytes of packed B (the VNNI shape).
schedule::State VnniSchedule(const std::shared_ptr<const te::ComputeDag>& dag) {
  schedule::State s(dag);
  const int out = dag->outputs()[0];
  EXPECT_TRUE(s.Reorder(out, {0, 1, 3, 2}).ok());  // m, block, lane, k4 -> m, block, k4, lane
  EXPECT_TRUE(s.Annotate(out, 3, schedule::IterAnnotation::kVectorize).ok());
  return s;
}

constexpr char kAvx2[] = "llvm -mtriple=x86_64-linux-gnu -mcpu=x86-64-v3";
constexpr char kAvx2Vnni[] = "llvm -mtriple=x86_64-linux-gnu -mcpu=x86-64-v3 -mattr=+avxvnni";
constexpr char kAvx512[] = "llvm -mtriple=x86_64-linux-gnu -mcpu=x86-64-v4";
constexpr char kAvx512Vnni[] = "llvm -mtriple=x86_64-linux-gnu -mcpu=znver4";

// The targets above that this machine can run, and the host itself.
std::vector<std::string> RunnableTargets() {
  std::vector<std::string> targets = {""};
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) targets.push_back(kAvx2);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("avxvnni")) targets.push_back(kAvx2Vnni);
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    targets.push_back(kAvx512);
  if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bf16")) targets.push_back(kAvx512Vnni);
#endif
  return targets;
}

TEST(Int8Matmul, SixteenVectorizedColumnsMatchTheDefinitionOnEveryTarget) {
  // Extremes included: 255 x -128 products, and sums that need all 32 bits' range of the lanes.
  const HostTensor a = Random(DType::kUInt8, {5, 64}, 6, 0, 255);
  HostTensor b = Random(DType::kInt8, {64, 48}, 7, -128, 127);
  b.data[0] = -128;
  const HostTensor want = Reference(a, b);
  auto dag = BuildOpDag({a, Pack(b)}, Product());
  ASSERT_TRUE(dag.ok()) << dag.status();
  const schedule::State s = VnniSchedule(*dag);
  auto interpreted = InterpretState(s, {a, Pack(b)});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  EXPECT_TRUE(AllClose(*interpreted, want));
  for (const std::string& target : RunnableTargets()) {
    for (int threads : {1, 2}) {
      auto got = RunStateSharedObject(s, {a, Pack(b)}, threads, target);
      ASSERT_TRUE(got.ok()) << target << ": " << got.status();
      EXPECT_TRUE(AllClose(*got, want)) << (target.empty() ? "host" : target) << ", " << threads << " threads";
    }
  }
}

// The disassembly of the schedule above on a 4 x 32 by 32 x 32 product, built for `target`.
std::string VnniScheduleDisassembly(const std::string& target_text) {
  const HostTensor a = Random(DType::kUInt8, {4, 32}, 8, 0, 255);
  const HostTensor b = Random(DType::kInt8, {32, 32}, 9, -128, 127);
  auto dag = BuildOpDag({a, Pack(b)}, Product());
  EXPECT_TRUE(dag.ok()) << dag.status();
  if (!dag.ok()) return "";
  auto f = tir::Lower(VnniSchedule(*dag), "op");
  EXPECT_TRUE(f.ok()) << f.status();
  auto target = codegen::Target::Parse(target_text);
  EXPECT_TRUE(target.ok()) << target.status();
  if (!f.ok() || !target.ok()) return "";
  auto so = codegen::BuildSharedObject({*f}, *target);
  EXPECT_TRUE(so.ok()) << so.status();
  return so.ok() ? codegen::testing::Disassemble(*so) : std::string();
}

// What the schedule above compiles to: vpdpbusd where the target has it (zmm with AVX512-VNNI,
// ymm with AVX-VNNI), and contiguous loads without it; never a gather.
TEST(Int8Matmul, VnniTargetsGetOneVpdpbusdPerFourProducts) {
  auto disassembly = VnniScheduleDisassembly;
  const std::string zmm = disassembly(kAvx512Vnni), ymm = disassembly(kAvx2Vnni);
  const std::string avx512 = disassembly(kAvx512), avx2 = disassembly(kAvx2);
  EXPECT_TRUE(std::regex_search(zmm, std::regex(R"(vpdpbusd\s+.*%zmm)"))) << zmm.substr(0, 6000);
  EXPECT_TRUE(std::regex_search(ymm, std::regex(R"(vpdpbusd\s+.*%ymm)"))) << ymm.substr(0, 6000);
  for (const std::string* text : {&zmm, &ymm, &avx512, &avx2}) EXPECT_EQ(text->find("gather"), std::string::npos);
  for (const std::string* text : {&avx512, &avx2}) EXPECT_EQ(text->find("vpdpbusd"), std::string::npos);
}

// The same schedule for AArch64: usdot with +i8mm (Neoverse V1), sdot with only +dotprod
// (Neoverse N1: the unsigned bytes shifted into the signed range, and a second sdot by ones for
// the shift's correction), and neither without them (Cortex-A72). Their results are checked
// under qemu by deploy.arm.ModelsUnderQemu (a quantized model compiled for each).
TEST(Int8Matmul, AArch64TargetsGetUsdotWithI8mmAndSdotWithDotprod) {
  auto disassembly = [](const std::string& cpu) {
    return VnniScheduleDisassembly("llvm -mtriple=aarch64-linux-gnu -mcpu=" + cpu);
  };
  const std::string v1 = disassembly("neoverse-v1"), n1 = disassembly("neoverse-n1"), a72 = disassembly("cortex-a72");
  EXPECT_TRUE(std::regex_search(v1, std::regex(R"(usdot\s+v[0-9]+\.4s)"))) << v1.substr(0, 6000);
  EXPECT_TRUE(std::regex_search(n1, std::regex(R"(\bsdot\s+v[0-9]+\.4s)"))) << n1.substr(0, 6000);
  EXPECT_EQ(n1.find("usdot"), std::string::npos);
  EXPECT_EQ(a72.find("sdot"), std::string::npos);
}

// --- The matcher ---

using te::Expr;

// i32(u8[i]) * i32(s8[j]) with buffer ids 0 and 1.
Expr ByteProduct(Expr i, Expr j) {
  return te::Cast(DType::kInt32, te::Load(DType::kUInt8, 0, {i})) * te::Cast(DType::kInt32, te::Load(DType::kInt8, 1, {j}));
}

TEST(Dot4Matcher, GroupsFourAdjacentProductsInAnyOrderAndKeepsTheRest) {
  const Expr x = te::MakeVar("x", 1), y = te::MakeVar("y", 2);
  const Expr acc = te::Load(DType::kInt32, 2, {y});
  // Terms out of order, the accumulator in the middle, two groups (offsets 0..3 and 4..7).
  Expr sum = ByteProduct(x * 8 + 2, y * 4 + 2);
  for (int j : {0, 5, 3, 7, 1, 4, 6}) {
    sum = sum + ByteProduct(x * 8 + j, y * 4 + j);
    if (j == 3) sum = sum + acc;
  }
  codegen::Dot4Sum match;
  ASSERT_TRUE(codegen::MatchDot4Sum(sum, &match));
  ASSERT_EQ(match.groups.size(), 2u);
  ASSERT_EQ(match.rest.size(), 1u);
  EXPECT_TRUE(match.rest[0].same_as(acc));
}

TEST(Dot4Matcher, RefusesWhatIsNotFourUnsignedBySignedProducts) {
  const Expr x = te::MakeVar("x", 1);
  codegen::Dot4Sum match;
  // Three products only.
  EXPECT_FALSE(codegen::MatchDot4Sum(ByteProduct(x, x) + ByteProduct(x + 1, x + 1) + ByteProduct(x + 2, x + 2), &match));
  // The two operands advance differently.
  Expr skewed = ByteProduct(x, x);
  for (int j = 1; j < 4; ++j) skewed = skewed + ByteProduct(x + j, x + 2 * j);
  EXPECT_FALSE(codegen::MatchDot4Sum(skewed, &match));
  // uint8 x uint8: VNNI's bytes are unsigned by signed.
  auto both_unsigned = [&](int j) {
    return te::Cast(DType::kInt32, te::Load(DType::kUInt8, 0, {x + j})) *
           te::Cast(DType::kInt32, te::Load(DType::kUInt8, 1, {x + j}));
  };
  EXPECT_FALSE(codegen::MatchDot4Sum(both_unsigned(0) + both_unsigned(1) + both_unsigned(2) + both_unsigned(3), &match));
  // A gap: offsets 0, 1, 2, 4.
  EXPECT_FALSE(codegen::MatchDot4Sum(
      ByteProduct(x, x) + ByteProduct(x + 1, x + 1) + ByteProduct(x + 2, x + 2) + ByteProduct(x + 4, x + 4), &match));
}

}  // namespace
}  // namespace tunefarm::ops::testing
