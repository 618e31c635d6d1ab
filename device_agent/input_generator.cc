#include "device_agent/input_generator.h"

#include <cmath>
#include <cstring>

#include "device_agent/element_types.h"

namespace tunefarm::agent {

uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t InputBits(uint64_t seed, uint64_t arg, uint64_t index) {
  return SplitMix64(SplitMix64(SplitMix64(seed) ^ arg) ^ index);
}

double InputFloat(uint64_t bits) {
  return static_cast<double>(bits >> 40) * 0x1p-23 - 1.0;
}

int64_t InputInteger(uint64_t bits, int64_t lo, int64_t hi) {
  // Unsigned arithmetic: hi - lo may exceed INT64_MAX, and the full range wraps to 0.
  const uint64_t width = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  const uint64_t offset = width == 0 ? bits : bits % width;
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + offset);
}

void FillInput(const deploy::ArgInfo& arg, int32_t arg_index, uint64_t seed, void* data) {
  const std::optional<ElementType> type = ElementTypeOf(arg.dtype);
  if (!type) return;  // the metadata parser accepts only known dtypes
  const int64_t n = arg.NumElements();
  if (IsFloating(*type)) {
    for (int64_t i = 0; i < n; ++i) {
      StoreElement(*type, data, i, InputFloat(InputBits(seed, arg_index, i)));
    }
    return;
  }
  const bool has_range = arg.range.has_value();
  const int64_t lo = has_range ? arg.range->lo : 0;
  const int64_t hi = has_range ? arg.range->hi : (*type == ElementType::kBool ? 1 : 0);
  for (int64_t i = 0; i < n; ++i) {
    StoreInteger(*type, data, i, InputInteger(InputBits(seed, arg_index, i), lo, hi));
  }
}

void FillPoison(const deploy::ArgInfo& arg, void* data) {
  const std::optional<ElementType> type = ElementTypeOf(arg.dtype);
  if (type && IsFloating(*type)) {
    const int64_t n = arg.NumElements();
    for (int64_t i = 0; i < n; ++i) StoreElement(*type, data, i, std::nan(""));
    return;
  }
  std::memset(data, 0xFF, static_cast<size_t>(arg.NumBytes()));
}

}  // namespace tunefarm::agent
