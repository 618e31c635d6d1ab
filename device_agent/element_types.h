// Elements of the kernel ABI's dtypes read and written as doubles, for the measure helper's
// input generator and output comparison. float16 and bfloat16 are converted in software
// (round to nearest even), so the helper needs no compiler support for them.
#ifndef TUNEFARM_DEVICE_AGENT_ELEMENT_TYPES_H_
#define TUNEFARM_DEVICE_AGENT_ELEMENT_TYPES_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "compiler/te/dtype.h"

namespace tunefarm::agent {

// The compiler's dtype table (compiler/te/dtype.h, in tf_dtype, which links no compiler code).
using ElementType = te::DType;

// The type of a metadata dtype name, or nullopt for a name the ABI does not define.
inline std::optional<ElementType> ElementTypeOf(std::string_view dtype) { return te::ParseDType(dtype); }
inline bool IsFloating(ElementType type) { return te::IsFloat(type) || te::IsStorageFloat(type); }

// Element `index` of an array of `type`, as a double (uint64/int64 beyond 2^53 lose bits).
double LoadElement(ElementType type, const void* data, int64_t index);
// Stores `value` (already within the type's range for integers) as element `index`.
void StoreElement(ElementType type, void* data, int64_t index, double value);
// Integer types only: stores `value` exactly.
void StoreInteger(ElementType type, void* data, int64_t index, int64_t value);

uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);
float BFloat16ToFloat(uint16_t bits);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_ELEMENT_TYPES_H_
