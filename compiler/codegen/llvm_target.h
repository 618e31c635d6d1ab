// Target -> llvm::TargetMachine, and the facts about it that code generation asks.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "compiler/codegen/math_emitter.h"
#include "compiler/codegen/target.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace tunefarm::codegen {

// Registers the x86 and AArch64 backends once per process (thread-safe).
void InitializeLlvmTargets();

// A TargetMachine for `target` (PIC, small code model, -O3). An unknown cpu or feature name
// is an InvalidArgument error (LLVM itself would only print a warning).
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const Target& target);

MathOptions MathOptionsFor(const llvm::TargetMachine& tm);

}  // namespace tunefarm::codegen
