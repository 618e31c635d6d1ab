#include "device_agent/element_types.h"

#include <cmath>
#include <cstring>

namespace tunefarm::agent {
namespace {

template <typename T>
T Load(const void* data, int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const char*>(data) + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void Store(void* data, int64_t index, T value) {
  std::memcpy(static_cast<char*>(data) + index * sizeof(T), &value, sizeof(T));
}

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float BitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

std::optional<ElementType> ElementTypeOf(std::string_view dtype) {
  struct Name {
    std::string_view name;
    ElementType type;
  };
  static constexpr Name kNames[] = {
      {"float16", ElementType::kFloat16}, {"bfloat16", ElementType::kBFloat16},
      {"float32", ElementType::kFloat32}, {"float64", ElementType::kFloat64},
      {"int8", ElementType::kInt8},       {"int16", ElementType::kInt16},
      {"int32", ElementType::kInt32},     {"int64", ElementType::kInt64},
      {"uint8", ElementType::kUInt8},     {"uint16", ElementType::kUInt16},
      {"uint32", ElementType::kUInt32},   {"uint64", ElementType::kUInt64},
      {"bool", ElementType::kBool},
  };
  for (const Name& entry : kNames) {
    if (entry.name == dtype) return entry.type;
  }
  return std::nullopt;
}

bool IsFloating(ElementType type) {
  return type == ElementType::kFloat16 || type == ElementType::kBFloat16 ||
         type == ElementType::kFloat32 || type == ElementType::kFloat64;
}

double LoadElement(ElementType type, const void* data, int64_t index) {
  switch (type) {
    case ElementType::kFloat16: return HalfToFloat(Load<uint16_t>(data, index));
    case ElementType::kBFloat16: return BFloat16ToFloat(Load<uint16_t>(data, index));
    case ElementType::kFloat32: return Load<float>(data, index);
    case ElementType::kFloat64: return Load<double>(data, index);
    case ElementType::kInt8: return Load<int8_t>(data, index);
    case ElementType::kInt16: return Load<int16_t>(data, index);
    case ElementType::kInt32: return Load<int32_t>(data, index);
    case ElementType::kInt64: return static_cast<double>(Load<int64_t>(data, index));
    case ElementType::kUInt8: return Load<uint8_t>(data, index);
    case ElementType::kUInt16: return Load<uint16_t>(data, index);
    case ElementType::kUInt32: return Load<uint32_t>(data, index);
    case ElementType::kUInt64: return static_cast<double>(Load<uint64_t>(data, index));
    case ElementType::kBool: return Load<uint8_t>(data, index);
  }
  return 0;
}

void StoreElement(ElementType type, void* data, int64_t index, double value) {
  switch (type) {
    case ElementType::kFloat16: Store(data, index, FloatToHalf(static_cast<float>(value))); return;
    case ElementType::kBFloat16:
      Store(data, index, FloatToBFloat16(static_cast<float>(value)));
      return;
    case ElementType::kFloat32: Store(data, index, static_cast<float>(value)); return;
    case ElementType::kFloat64: Store(data, index, value); return;
    default: StoreInteger(type, data, index, static_cast<int64_t>(value)); return;
  }
}

void StoreInteger(ElementType type, void* data, int64_t index, int64_t value) {
  switch (type) {
    case ElementType::kInt8: Store(data, index, static_cast<int8_t>(value)); return;
    case ElementType::kInt16: Store(data, index, static_cast<int16_t>(value)); return;
    case ElementType::kInt32: Store(data, index, static_cast<int32_t>(value)); return;
    case ElementType::kInt64: Store(data, index, value); return;
    case ElementType::kUInt8: Store(data, index, static_cast<uint8_t>(value)); return;
    case ElementType::kUInt16: Store(data, index, static_cast<uint16_t>(value)); return;
    case ElementType::kUInt32: Store(data, index, static_cast<uint32_t>(value)); return;
    case ElementType::kUInt64: Store(data, index, static_cast<uint64_t>(value)); return;
    case ElementType::kBool: Store(data, index, static_cast<uint8_t>(value != 0)); return;
    default: StoreElement(type, data, index, static_cast<double>(value)); return;
  }
}

uint16_t FloatToHalf(float value) {
  const uint32_t bits = FloatBits(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN
  if (magnitude >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // overflow: inf
  if (magnitude < 0x38800000u) {
    // Subnormal half (or zero): scale to units of 2^-24 and round to nearest even.
    const float scaled = BitsFloat(magnitude) * 16777216.0f;  // exact: a power of two
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  // Normal: rebias the exponent (127 -> 15), round the 13 dropped mantissa bits to even.
  const uint32_t rebased = magnitude - 0x38000000u;
  const uint32_t round = 0x0FFFu + ((rebased >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rebased + round) >> 13));
}

float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  const uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0) {
    const float value = static_cast<float>(mantissa) / 16777216.0f;  // mantissa * 2^-24
    return sign != 0 ? -value : value;
  }
  if (exponent == 0x1F) return BitsFloat(sign | 0x7F800000u | (mantissa << 13));
  return BitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t FloatToBFloat16(float value) {
  const uint32_t bits = FloatBits(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  const uint32_t round = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + round) >> 16);
}

float BFloat16ToFloat(uint16_t bits) { return BitsFloat(static_cast<uint32_t>(bits) << 16); }

}  // namespace tunefarm::agent
