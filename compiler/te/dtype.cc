#include "compiler/te/dtype.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "common/check.h"

namespace tunefarm::te {
namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  int bytes;
};
// Indexed by the enum's value.
constexpr std::array<DTypeInfo, 13> kInfos = {{
    {DType::kBool, "bool", 1},
    {DType::kInt8, "int8", 1},
    {DType::kInt16, "int16", 2},
    {DType::kInt32, "int32", 4},
    {DType::kInt64, "int64", 8},
    {DType::kUInt8, "uint8", 1},
    {DType::kFloat32, "float32", 4},
    {DType::kFloat64, "float64", 8},
    {DType::kUInt16, "uint16", 2},
    {DType::kUInt32, "uint32", 4},
    {DType::kUInt64, "uint64", 8},
    {DType::kFloat16, "float16", 2},
    {DType::kBFloat16, "bfloat16", 2},
}};
constexpr bool InfosAreIndexed() {
  for (size_t i = 0; i < kInfos.size(); ++i)
    if (static_cast<size_t>(kInfos[i].type) != i) return false;
  return true;
}
static_assert(InfosAreIndexed());
}  // namespace

std::string_view DTypeName(DType t) { return kInfos[static_cast<int>(t)].name; }
int DTypeBytes(DType t) { return kInfos[static_cast<int>(t)].bytes; }

std::optional<DType> ParseDType(std::string_view name) {
  for (const auto& info : kInfos)
    if (info.name == name) return info.type;
  return std::nullopt;
}

int64_t IntDTypeLowest(DType t) {
  TF_CHECK(IsInt(t) || t == DType::kBool, "IntDTypeLowest of a float dtype");
  if (!IsSigned(t)) return 0;
  return std::numeric_limits<int64_t>::min() >> (64 - 8 * DTypeBytes(t));
}

int64_t IntDTypeHighest(DType t) {
  TF_CHECK(IsInt(t) || t == DType::kBool, "IntDTypeHighest of a float dtype");
  if (t == DType::kBool) return 1;
  if (t == DType::kUInt64) return -1;
  if (!IsSigned(t)) return static_cast<int64_t>((uint64_t{1} << (8 * DTypeBytes(t))) - 1);
  return std::numeric_limits<int64_t>::max() >> (64 - 8 * DTypeBytes(t));
}

int64_t WrapToIntDType(DType t, int64_t v) {
  if (t == DType::kBool) return v != 0;
  const int bits = 8 * DTypeBytes(t);
  if (bits == 64) return v;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t low = static_cast<uint64_t>(v) & mask;
  if (IsSigned(t) && (low >> (bits - 1)) != 0) low |= ~mask;
  return static_cast<int64_t>(low);
}

int64_t SaturateToIntDType(DType t, double v) {
  if (std::isnan(v)) return 0;
  if (t == DType::kBool) return v != 0;
  const double lo = IntDTypeValue(t, IntDTypeLowest(t)), hi = IntDTypeValue(t, IntDTypeHighest(t));
  v = std::trunc(std::clamp(v, lo, hi));
  // The 64-bit highest values are not representable as doubles (they round up to 2^63 / 2^64).
  if (v >= hi) return IntDTypeHighest(t);
  if (v >= 9223372036854775808.0) return static_cast<int64_t>(static_cast<uint64_t>(v));
  return static_cast<int64_t>(v);
}

double IntDTypeValue(DType t, int64_t bits) {
  return t == DType::kUInt64 ? static_cast<double>(static_cast<uint64_t>(bits)) : static_cast<double>(bits);
}

}  // namespace tunefarm::te
