// LLVM IR for the conversions of the storage-only float dtypes (float16, bfloat16), built from
// integer instructions so a kernel needs neither F16C/AVX512-FP16 nor compiler-rt's
// __truncsfhf2 family. Mirrors te/float_bits.h bit for bit; works on scalars and vectors.
#pragma once

#include "compiler/te/float_bits.h"

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace tunefarm::codegen {

// `value` is a float32 or float64 (scalar or vector); returns the bits of the nearest value in
// `to` (rounded to nearest even), as an integer of to.TotalBits() bits.
llvm::Value* EmitNarrowFloat(llvm::IRBuilderBase& b, llvm::Value* value, te::FloatFormat to);

// `bits` (an integer of from.TotalBits() bits, scalar or vector) in format `from` (float16 or
// bfloat16); returns the float32 with the same value (exact).
llvm::Value* EmitWidenToFloat32(llvm::IRBuilderBase& b, llvm::Value* bits, te::FloatFormat from);

}  // namespace tunefarm::codegen
