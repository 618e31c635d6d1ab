// Element types of tensors and expressions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tunefarm::te {

enum class DType : uint8_t { kBool, kInt8, kInt16, kInt32, kInt64, kUInt8, kFloat32, kFloat64 };

// The type every index and loop variable uses.
inline constexpr DType kIndexType = DType::kInt64;

std::string_view DTypeName(DType t);  // "float32", "int64", "bool", ...
std::optional<DType> ParseDType(std::string_view name);
int DTypeBytes(DType t);
inline bool IsFloat(DType t) { return t == DType::kFloat32 || t == DType::kFloat64; }
inline bool IsInt(DType t) { return !IsFloat(t) && t != DType::kBool; }
inline bool IsSigned(DType t) { return t != DType::kUInt8 && t != DType::kBool; }

}  // namespace tunefarm::te
