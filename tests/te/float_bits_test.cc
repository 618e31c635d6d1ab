// te/float_bits: narrowing to float16/bfloat16 against an arithmetic reference (scale to the
// result's quantum, round with nearbyint, which is ties-to-even) and, where the compiler has
// _Float16, against the compiler's own conversions; widening against exhaustive round trips.
#include "compiler/te/float_bits.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tunefarm::te {
namespace {

uint64_t BitsOf(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}
uint32_t BitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

bool IsNanBits(uint64_t bits, FloatFormat f) {
  const uint64_t magnitude = bits & ((uint64_t{1} << (f.TotalBits() - 1)) - 1);
  return magnitude > f.InfinityBits();
}

// The value x rounds to in format f, by arithmetic: the quantum at x's binade (no finer than
// the subnormal quantum), nearbyint in the default ties-to-even mode, overflow to infinity.
double ReferenceRound(double x, FloatFormat f) {
  if (std::isnan(x) || std::isinf(x)) return x;
  const double a = std::fabs(x);
  const int min_exponent = 1 - f.Bias();
  const int exponent = a == 0 ? min_exponent : std::max(std::ilogb(a), min_exponent);
  const double quantum = std::ldexp(1.0, exponent - f.mantissa_bits);
  double r = std::nearbyint(a / quantum) * quantum;
  const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -f.mantissa_bits), f.Bias());
  if (r > max_finite) r = INFINITY;
  return std::copysign(r, x);
}

void ExpectNarrowsLikeReference(double x, FloatFormat to) {
  const uint64_t got = NarrowFloatBits(BitsOf(x), kDoubleFormat, to);
  if (std::isnan(x)) {
    EXPECT_TRUE(IsNanBits(got, to)) << x;
    return;
  }
  const double want = ReferenceRound(x, to);
  const double value = FloatBitsToDouble(got, to);
  EXPECT_EQ(value, want) << "x=" << x << " bits=" << got;
  EXPECT_EQ(std::signbit(value), std::signbit(want)) << "x=" << x;
}

std::vector<double> EdgeValues(FloatFormat f) {
  const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -f.mantissa_bits), f.Bias());
  const double ulp_at_max = std::ldexp(1.0, f.Bias() - f.mantissa_bits);
  const double min_subnormal = std::ldexp(1.0, 1 - f.Bias() - f.mantissa_bits);
  const double min_normal = std::ldexp(1.0, 1 - f.Bias());
  const double one_ulp = std::ldexp(1.0, -f.mantissa_bits);
  return {0.0,
          -0.0,
          1.0,
          1.0 + one_ulp / 2,      // tie, rounds down to even
          1.0 + 3 * one_ulp / 2,  // tie, rounds up to even
          1.0 + one_ulp / 2 + 1e-12,
          max_finite,
          max_finite + ulp_at_max / 2,  // tie between max and the next (odd max): infinity
          max_finite + ulp_at_max / 2 - 1e-3 * ulp_at_max,
          -max_finite * 4,
          min_subnormal,
          min_subnormal / 2,      // tie with zero: zero
          min_subnormal * 0.75,   // rounds up to min_subnormal
          min_subnormal * 1.5,    // tie between 1 and 2 subnormal quanta: 2
          min_normal,
          min_normal - min_subnormal / 2,  // tie: the even neighbour is min_normal
          min_normal * (1 - one_ulp),
          1e-300,
          -1e300,
          std::numeric_limits<double>::denorm_min(),
          INFINITY,
          -INFINITY,
          NAN};
}

TEST(FloatBitsTest, NarrowingFromDoubleMatchesArithmetic) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  for (FloatFormat to : {kHalfFormat, kBFloat16Format}) {
    for (double x : EdgeValues(to)) {
      ExpectNarrowsLikeReference(x, to);
      ExpectNarrowsLikeReference(-x, to);
    }
    std::mt19937_64 rng(7);
    for (int k = 0; k < 200000; ++k) {
      // Every exponent of a double appears, most near the format's range.
      double x;
      uint64_t bits = rng();
      std::memcpy(&x, &bits, 8);
      if (k % 2) x = std::ldexp(std::uniform_real_distribution<double>(1, 2)(rng), int(rng() % 300) - 150);
      ExpectNarrowsLikeReference(x, to);
    }
  }
}

TEST(FloatBitsTest, NarrowingFromFloat32MatchesNarrowingFromItsDouble) {
  std::mt19937 rng(9);
  for (int k = 0; k < 300000; ++k) {
    uint32_t bits = rng();
    float x;
    std::memcpy(&x, &bits, 4);
    for (FloatFormat to : {kHalfFormat, kBFloat16Format}) {
      uint64_t from_float = NarrowFloatBits(bits, kSingleFormat, to);
      uint64_t from_double = NarrowFloatBits(BitsOf(static_cast<double>(x)), kDoubleFormat, to);
      if (std::isnan(x)) {
        ASSERT_TRUE(IsNanBits(from_float, to));
        ASSERT_EQ(from_float & 0x8000, bits >> 16 & 0x8000) << "NaN keeps its sign";
      } else {
        ASSERT_EQ(from_float, from_double) << x;
      }
    }
  }
}

TEST(FloatBitsTest, EveryHalfAndBFloat16RoundTripsThroughDouble) {
  for (uint32_t h = 0; h < 65536; ++h) {
    for (FloatFormat f : {kHalfFormat, kBFloat16Format}) {
      double v = FloatBitsToDouble(h, f);
      uint64_t back = NarrowFloatBits(BitsOf(v), kDoubleFormat, f);
      if (IsNanBits(h, f)) {
        ASSERT_TRUE(std::isnan(v));
        ASSERT_TRUE(IsNanBits(back, f));
      } else {
        ASSERT_EQ(back, h) << "value " << v;
      }
    }
  }
}

TEST(FloatBitsTest, BFloat16IsTheTopHalfOfAFloat32) {
  for (uint32_t h = 0; h < 65536; ++h) {
    uint32_t f32_bits = h << 16;
    float f;
    std::memcpy(&f, &f32_bits, 4);
    if (std::isnan(f)) continue;
    ASSERT_EQ(BFloat16BitsToDouble(static_cast<uint16_t>(h)), static_cast<double>(f)) << h;
  }
}

TEST(FloatBitsTest, KnownEncodings) {
  EXPECT_EQ(DoubleToHalfBits(1.0), 0x3C00);
  EXPECT_EQ(DoubleToHalfBits(-2.0), 0xC000);
  EXPECT_EQ(DoubleToHalfBits(65504.0), 0x7BFF);
  EXPECT_EQ(DoubleToHalfBits(65520.0), 0x7C00);
  EXPECT_EQ(DoubleToHalfBits(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(DoubleToHalfBits(0.1), 0x2E66);
  EXPECT_EQ(DoubleToBFloat16Bits(1.0), 0x3F80);
  EXPECT_EQ(DoubleToBFloat16Bits(3.140625), 0x4049);
  EXPECT_EQ(DoubleToBFloat16Bits(-INFINITY), 0xFF80);
  EXPECT_EQ(DoubleToHalfBits(NAN) & 0x7E00, 0x7E00);  // quiet NaN
  EXPECT_EQ(HalfBitsToDouble(0x3555), 0.333251953125);
  EXPECT_EQ(HalfBitsToDouble(0x8001), -std::ldexp(1.0, -24));
  EXPECT_EQ(BFloat16BitsToDouble(0x4049), 3.140625);
}

#if defined(__FLT16_MAX__)
// The compiler's _Float16 conversions (libgcc / hardware) as a second, independent reference.
TEST(FloatBitsTest, AgreesWithTheCompilersFloat16) {
  std::mt19937_64 rng(5);
  for (int k = 0; k < 200000; ++k) {
    double d = std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng), int(rng() % 50) - 30);
    float f = static_cast<float>(d);
    _Float16 hd = static_cast<_Float16>(d), hf = static_cast<_Float16>(f);
    uint16_t want_d, want_f;
    std::memcpy(&want_d, &hd, 2);
    std::memcpy(&want_f, &hf, 2);
    ASSERT_EQ(DoubleToHalfBits(d), want_d) << d;
    ASSERT_EQ(NarrowFloatBits(BitsOf(f), kSingleFormat, kHalfFormat), want_f) << f;
  }
  for (uint32_t h = 0; h < 65536; ++h) {
    uint16_t bits = static_cast<uint16_t>(h);
    _Float16 v;
    std::memcpy(&v, &bits, 2);
    double want = static_cast<double>(v);
    if (std::isnan(want)) continue;
    ASSERT_EQ(HalfBitsToDouble(bits), want) << h;
  }
}
#endif

}  // namespace
}  // namespace tunefarm::te
