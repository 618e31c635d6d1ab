#include "device_agent/element_types.h"

#include <cmath>
#include <cstring>

#include "compiler/te/float_bits.h"

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

}  // namespace

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
    // Rounded once, from the double.
    case ElementType::kFloat16: Store(data, index, te::DoubleToHalfBits(value)); return;
    case ElementType::kBFloat16: Store(data, index, te::DoubleToBFloat16Bits(value)); return;
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

// The compiler's conversions (te/float_bits.h), so the agent rounds exactly as kernels do.
uint16_t FloatToHalf(float value) { return te::DoubleToHalfBits(value); }
float HalfToFloat(uint16_t half) { return static_cast<float>(te::HalfBitsToDouble(half)); }
uint16_t FloatToBFloat16(float value) { return te::DoubleToBFloat16Bits(value); }
float BFloat16ToFloat(uint16_t bits) { return static_cast<float>(te::BFloat16BitsToDouble(bits)); }

}  // namespace tunefarm::agent
