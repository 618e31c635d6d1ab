// The back half of code generation: verify, optimize (LLVM's O3 pipeline) and emit an ELF
// relocatable object for the module's target.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace tunefarm::codegen {

// llvm::verifyModule; its message comes back as an Internal error instead of an abort.
absl::Status VerifyLlvmModule(const llvm::Module& module);

// The new pass manager's O3 pipeline for `tm`, with the loop and SLP vectorizers on (so loops
// that codegen left scalar still get a chance). The library-call table allows only
// memcpy/memset/memmove, so no pass can introduce a call to anything else.
void OptimizeLlvmModule(llvm::Module& module, llvm::TargetMachine& tm);

// The object file's bytes. Deterministic: nothing in it depends on time, paths or addresses.
absl::StatusOr<std::string> EmitObjectFile(llvm::Module& module, llvm::TargetMachine& tm);

// The target's assembly text: PTX for NVPTX.
absl::StatusOr<std::string> EmitAssembly(llvm::Module& module, llvm::TargetMachine& tm);

}  // namespace tunefarm::codegen
