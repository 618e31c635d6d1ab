// Element types of tensors and expressions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tunefarm::te {

enum class DType : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kFloat32,
  kFloat64,
  kUInt16,
  kUInt32,
  kUInt64,
  // Storage-only floats: tensors hold them, but expressions only load, store, select and cast
  // them. In expressions a value of these dtypes is its 16-bit pattern; Cast converts it
  // (float_bits.h). Ops that compute on them reject them with an error.
  kFloat16,
  kBFloat16,
};

// The type every index and loop variable uses.
inline constexpr DType kIndexType = DType::kInt64;

std::string_view DTypeName(DType t);  // "float32", "int64", "bool", ...
std::optional<DType> ParseDType(std::string_view name);
int DTypeBytes(DType t);
// Floats expressions compute with.
inline bool IsFloat(DType t) { return t == DType::kFloat32 || t == DType::kFloat64; }
inline bool IsStorageFloat(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }
inline bool IsUnsignedInt(DType t) {
  return t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64;
}
inline bool IsInt(DType t) { return !IsFloat(t) && !IsStorageFloat(t) && t != DType::kBool; }
inline bool IsSigned(DType t) { return !IsUnsignedInt(t) && t != DType::kBool; }
// The range of an integer dtype (bool: 0..1) as int64 bit patterns: uint64's highest is -1.
int64_t IntDTypeLowest(DType t);
int64_t IntDTypeHighest(DType t);
// v wrapped to the width of integer dtype t, as its register would hold it: sign-extended for
// signed dtypes, zero-extended for unsigned ones (so uint64 keeps its bit pattern), 0/1 for bool.
int64_t WrapToIntDType(DType t, int64_t v);
// v truncated toward zero and saturated to t's range (NaN: 0), as an int64 bit pattern.
int64_t SaturateToIntDType(DType t, double v);
// The value an int64 bit pattern of integer dtype t stands for (uint64 above 2^63 included).
double IntDTypeValue(DType t, int64_t bits);

}  // namespace tunefarm::te
