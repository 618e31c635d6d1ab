#include "device_agent/input_generator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "device_agent/element_types.h"

namespace tunefarm::agent {
namespace {

deploy::ArgInfo Arg(const char* dtype, int64_t n, std::optional<deploy::ValueRange> range = {}) {
  deploy::ArgInfo arg;
  arg.name = "x";
  arg.dtype = dtype;
  arg.shape = {n};
  arg.range = range;
  return arg;
}

TEST(InputGenerator, SplitMix64MatchesTheReferenceSequence) {
  // The first outputs of splitmix64 seeded with 0 (Vigna's reference implementation).
  EXPECT_EQ(SplitMix64(0), 0xe220a8397b1dcdafull);
  EXPECT_EQ(SplitMix64(0x9E3779B97F4A7C15ull), 0x6e789e6aa1b965f4ull);
}

TEST(InputGenerator, FloatsAreDeterministicAndInRange) {
  std::vector<float> a(1000), b(1000), other_seed(1000), other_arg(1000);
  FillInput(Arg("float32", 1000), 0, 7, a.data());
  FillInput(Arg("float32", 1000), 0, 7, b.data());
  FillInput(Arg("float32", 1000), 0, 8, other_seed.data());
  FillInput(Arg("float32", 1000), 1, 7, other_arg.data());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other_seed);
  EXPECT_NE(a, other_arg);
  double sum = 0;
  for (float v : a) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / a.size(), 0, 0.1);  // spread over the interval, not stuck
  EXPECT_EQ(a[3], static_cast<float>(InputFloat(InputBits(7, 0, 3))));
}

TEST(InputGenerator, IntegersStayInTheirDeclaredRange) {
  std::vector<int64_t> values(2000);
  FillInput(Arg("int64", 2000, deploy::ValueRange{-3, 4}), 2, 1, values.data());
  std::set<int64_t> seen(values.begin(), values.end());
  EXPECT_EQ(seen, (std::set<int64_t>{-3, -2, -1, 0, 1, 2, 3, 4}));
  std::vector<int32_t> unranged(10, 5);
  FillInput(Arg("int32", 10), 0, 1, unranged.data());
  EXPECT_EQ(unranged, std::vector<int32_t>(10, 0));
  // The full range wraps the width to 0: lo + bits, modulo 2^64.
  EXPECT_EQ(InputInteger(~0ull, INT64_MIN, INT64_MAX), INT64_MAX);
  EXPECT_EQ(InputInteger(5, INT64_MIN, INT64_MAX), INT64_MIN + 5);
}

TEST(InputGenerator, HalfPrecisionInputsAreRoundedFloats) {
  std::vector<uint16_t> half(100);
  FillInput(Arg("float16", 100), 0, 3, half.data());
  for (int i = 0; i < 100; ++i) {
    const double exact = InputFloat(InputBits(3, 0, i));
    EXPECT_NEAR(HalfToFloat(half[i]), exact, 1e-3);
  }
}

TEST(InputGenerator, PoisonIsNaNForFloatsAndAllOnesForIntegers) {
  std::vector<float> f(5, 1.0f);
  FillPoison(Arg("float32", 5), f.data());
  for (float v : f) EXPECT_TRUE(std::isnan(v));
  std::vector<uint16_t> bf(3, 0);
  FillPoison(Arg("bfloat16", 3), bf.data());
  for (uint16_t v : bf) EXPECT_TRUE(std::isnan(BFloat16ToFloat(v)));
  std::vector<int32_t> i(4, 0);
  FillPoison(Arg("int32", 4), i.data());
  EXPECT_EQ(i, std::vector<int32_t>(4, -1));
}

TEST(ElementTypes, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(70000.0f), 0x7C00);                // overflow: inf
  EXPECT_EQ(FloatToHalf(1.0f + 0x1p-11f), 0x3C00);         // a tie rounds to even
  EXPECT_EQ(FloatToHalf(1.0f + 3 * 0x1p-11f), 0x3C02);     // a tie rounds to even (up)
  EXPECT_EQ(FloatToHalf(0x1p-24f), 0x0001);                // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7C00)));
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(BFloat16ToFloat(0x4049), 3.140625f);
  for (uint32_t h = 0; h < 0x7C00; ++h) {  // every finite positive half survives a round trip
    ASSERT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))), h);
  }
}

}  // namespace
}  // namespace tunefarm::agent
