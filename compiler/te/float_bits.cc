#include "compiler/te/float_bits.h"

#include <cmath>
#include <cstring>

#include "common/check.h"

namespace tunefarm::te {

FloatFormat FormatOf(DType t) {
  switch (t) {
    case DType::kFloat16: return kHalfFormat;
    case DType::kBFloat16: return kBFloat16Format;
    case DType::kFloat32: return kSingleFormat;
    case DType::kFloat64: return kDoubleFormat;
    default: break;
  }
  TF_CHECK(false, "FormatOf: not a float dtype");
  return kDoubleFormat;
}

uint64_t NarrowFloatBits(uint64_t bits, FloatFormat from, FloatFormat to) {
  TF_CHECK(to.mantissa_bits < from.mantissa_bits && to.exponent_bits <= from.exponent_bits, "not a narrowing");
  const uint64_t sign = (bits >> (from.TotalBits() - 1)) & 1;
  const uint64_t out_sign = sign << (to.TotalBits() - 1);
  const int64_t exponent = static_cast<int64_t>((bits >> from.mantissa_bits) & ((uint64_t{1} << from.exponent_bits) - 1));
  const uint64_t mantissa = bits & ((uint64_t{1} << from.mantissa_bits) - 1);
  if (exponent == (int64_t{1} << from.exponent_bits) - 1) {
    if (mantissa == 0) return out_sign | to.InfinityBits();
    uint64_t quiet = uint64_t{1} << (to.mantissa_bits - 1);
    return out_sign | to.InfinityBits() | quiet | (mantissa >> (from.mantissa_bits - to.mantissa_bits));
  }
  // value = significand * 2^scale, with the implicit one for normal numbers.
  const uint64_t significand = exponent == 0 ? mantissa : mantissa | (uint64_t{1} << from.mantissa_bits);
  const int64_t unbiased = (exponent == 0 ? 1 : exponent) - from.Bias();
  const int64_t scale = unbiased - from.mantissa_bits;
  // The result's exponent, clamped to the smallest normal one: below it the result is subnormal
  // and its quantum stays 2^(min_exponent - mantissa_bits).
  const int64_t min_exponent = 1 - to.Bias();
  const int64_t result_exponent = unbiased > min_exponent ? unbiased : min_exponent;
  // Bits of the significand below the result's quantum; >= from.mantissa_bits - to.mantissa_bits.
  int64_t drop = (result_exponent - to.mantissa_bits) - scale;
  if (drop > 63) drop = 63;  // the significand is < 2^53: everything rounds to zero
  uint64_t rounded = significand >> drop;
  const uint64_t rest = significand & ((uint64_t{1} << drop) - 1);
  const uint64_t half = uint64_t{1} << (drop - 1);
  if (rest > half || (rest == half && (rounded & 1))) ++rounded;
  // rounded carries the implicit one of a normal result, so adding it to the exponent field
  // minus one gives the encoding; a carry out of the mantissa moves to the next binade, and a
  // subnormal that rounds up to 2^mantissa_bits becomes the smallest normal number.
  const uint64_t exponent_field = static_cast<uint64_t>(result_exponent + to.Bias() - 1);
  uint64_t magnitude = (exponent_field << to.mantissa_bits) + rounded;
  if (magnitude > to.InfinityBits()) magnitude = to.InfinityBits();
  return out_sign | magnitude;
}

double FloatBitsToDouble(uint64_t bits, FloatFormat f) {
  const bool negative = (bits >> (f.TotalBits() - 1)) & 1;
  const int64_t exponent = static_cast<int64_t>((bits >> f.mantissa_bits) & ((uint64_t{1} << f.exponent_bits) - 1));
  const uint64_t mantissa = bits & ((uint64_t{1} << f.mantissa_bits) - 1);
  double magnitude;
  if (exponent == (int64_t{1} << f.exponent_bits) - 1) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - f.Bias() - f.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << f.mantissa_bits)),
                           static_cast<int>(exponent) - f.Bias() - f.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

namespace {
uint64_t DoubleBits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return bits;
}
}  // namespace

uint16_t DoubleToHalfBits(double v) {
  return static_cast<uint16_t>(NarrowFloatBits(DoubleBits(v), kDoubleFormat, kHalfFormat));
}

uint16_t DoubleToBFloat16Bits(double v) {
  return static_cast<uint16_t>(NarrowFloatBits(DoubleBits(v), kDoubleFormat, kBFloat16Format));
}

}  // namespace tunefarm::te
