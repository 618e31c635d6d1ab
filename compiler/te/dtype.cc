#include "compiler/te/dtype.h"

#include <array>

namespace tunefarm::te {
namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  int bytes;
};
constexpr std::array<DTypeInfo, 8> kInfos = {{
    {DType::kBool, "bool", 1},
    {DType::kInt8, "int8", 1},
    {DType::kInt16, "int16", 2},
    {DType::kInt32, "int32", 4},
    {DType::kInt64, "int64", 8},
    {DType::kUInt8, "uint8", 1},
    {DType::kFloat32, "float32", 4},
    {DType::kFloat64, "float64", 8},
}};
}  // namespace

std::string_view DTypeName(DType t) { return kInfos[static_cast<int>(t)].name; }
int DTypeBytes(DType t) { return kInfos[static_cast<int>(t)].bytes; }

std::optional<DType> ParseDType(std::string_view name) {
  for (const auto& info : kInfos)
    if (info.name == name) return info.type;
  return std::nullopt;
}

}  // namespace tunefarm::te
