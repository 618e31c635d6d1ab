// HostTensor: a small owning dense tensor on the host (parameters, compile-time constants).
// Elements are stored little-endian, row-major, `DTypeBytes(dtype)` bytes each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/te/dtype.h"

namespace tunefarm::graph {

// Largest tensor the host will allocate for one constant (hostile files ask for more).
inline constexpr int64_t kMaxHostTensorBytes = int64_t{1} << 32;

// Element count of `shape`; an error for a negative dim or a count that overflows int64 or
// exceeds kMaxHostTensorBytes for elements of `elem_bytes` bytes.
absl::StatusOr<int64_t> CheckedNumElements(const std::vector<int64_t>& shape, int elem_bytes = 1);

struct HostTensor {
  te::DType dtype = te::DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  // A zero-filled tensor; checks the element count.
  static absl::StatusOr<HostTensor> Zeros(te::DType dtype, std::vector<int64_t> shape);
  static HostTensor FromInt64s(const std::vector<int64_t>& values, std::vector<int64_t> shape);
  static HostTensor FromFloats(const std::vector<float>& values, std::vector<int64_t> shape);

  int64_t NumElements() const;
  // Element i converted to int64 / double (any dtype).
  int64_t GetInt(int64_t i) const;
  double GetDouble(int64_t i) const;
  // Stores v into element i, converting to this tensor's dtype.
  void SetInt(int64_t i, int64_t v);
  void SetDouble(int64_t i, double v);
  std::vector<int64_t> ToInt64s() const;
  // "float32[1,3]" plus up to `max_values` leading values.
  std::string ToString(int max_values = 8) const;
};

std::string ShapeToString(const std::vector<int64_t>& shape);

}  // namespace tunefarm::graph
