// The front half of code generation shared by every output: validate the PrimFuncs, create
// the TargetMachine, build the LLVM module, verify it and (optionally) optimize it.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/tir/stmt.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace tunefarm::codegen {

struct CompiledModule {
  CompiledModule();
  CompiledModule(CompiledModule&&) noexcept;
  ~CompiledModule();
  // Declared in destruction order: the module before its context.
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};

// A target machine and an empty context for it.
absl::StatusOr<CompiledModule> PrepareModule(const Target& target);

absl::StatusOr<CompiledModule> CompileModule(const std::vector<tir::PrimFunc>& funcs,
                                             const Target& target, bool optimize);

}  // namespace tunefarm::codegen
