// Bit-level conversions between IEEE-style binary floating-point formats, for the storage-only
// dtypes float16 and bfloat16 (dtype.h). Narrowing rounds to nearest, ties to even, overflows to
// infinity, keeps NaN (quieted, sign and top payload bits kept) and produces subnormals; widening
// is exact. No hardware or compiler-runtime support is assumed: the generated code mirrors
// NarrowFloatBits in integer instructions (codegen/float_bits_ir.h), and the two are tested
// against each other and against an arithmetic reference.
#pragma once

#include <cstdint>

#include "compiler/te/dtype.h"

namespace tunefarm::te {

struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;  // stored bits, without the implicit leading one

  int Bias() const { return (1 << (exponent_bits - 1)) - 1; }
  int TotalBits() const { return 1 + exponent_bits + mantissa_bits; }
  uint64_t InfinityBits() const { return ((uint64_t{1} << exponent_bits) - 1) << mantissa_bits; }
};

inline constexpr FloatFormat kHalfFormat{5, 10};
inline constexpr FloatFormat kBFloat16Format{8, 7};
inline constexpr FloatFormat kSingleFormat{8, 23};
inline constexpr FloatFormat kDoubleFormat{11, 52};

// The format of a float dtype (float16, bfloat16, float32, float64).
FloatFormat FormatOf(DType t);

// `bits` encodes a value in `from`; returns the nearest value in `to` (fewer exponent and
// mantissa bits, or equal), rounded to nearest even.
uint64_t NarrowFloatBits(uint64_t bits, FloatFormat from, FloatFormat to);

// Exact value of `bits` in format `f` as a double (f no wider than double).
double FloatBitsToDouble(uint64_t bits, FloatFormat f);

// Conversions of the storage dtypes: double -> float16/bfloat16 rounds once, directly from the
// double (no intermediate float32 rounding).
uint16_t DoubleToHalfBits(double v);
uint16_t DoubleToBFloat16Bits(double v);
inline double HalfBitsToDouble(uint16_t bits) { return FloatBitsToDouble(bits, kHalfFormat); }
inline double BFloat16BitsToDouble(uint16_t bits) { return FloatBitsToDouble(bits, kBFloat16Format); }

}  // namespace tunefarm::te
