// Math intrinsics (te::Intrinsic) emitted inline as branch-free IR that works the same on
// scalars and vectors, so a vectorized loop stays vectorized and a kernel never calls libm:
// exp/log/tanh/sigmoid/erf/pow are polynomials (docs/codegen.md, "Math"), sqrt/fabs are LLVM
// intrinsics that every target lowers to an instruction, and floor/ceil are LLVM intrinsics
// only where the target has a rounding instruction (else an exact integer-conversion form).
#pragma once

#include "compiler/te/expr.h"

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace tunefarm::codegen {

struct MathOptions {
  // floor/ceil lower to one instruction (x86 SSE4.1 roundps, AArch64 frintm/frintp).
  bool native_rounding = true;
};

// Emits `f` applied to `x` (and `y` for pow; null otherwise). `x` is a float/double scalar or
// vector, or for kAbs also an integer one (`is_signed` says whether it is signed).
llvm::Value* EmitIntrinsic(llvm::IRBuilderBase& b, te::Intrinsic f, llvm::Value* x, llvm::Value* y,
                           bool is_signed, const MathOptions& options);

}  // namespace tunefarm::codegen
