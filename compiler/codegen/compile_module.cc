#include "compiler/codegen/compile_module.h"

#include "compiler/codegen/backend.h"
#include "compiler/codegen/llvm_target.h"
#include "compiler/codegen/object_emitter.h"
#include "compiler/codegen/validate.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {

CompiledModule::CompiledModule() = default;
CompiledModule::CompiledModule(CompiledModule&&) noexcept = default;
CompiledModule::~CompiledModule() = default;

absl::StatusOr<CompiledModule> PrepareModule(const Target& target) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = CreateTargetMachine(target);
  if (!tm.ok()) return tm.status();
  CompiledModule out;
  out.machine = std::move(*tm);
  out.context = std::make_unique<llvm::LLVMContext>();
  return out;
}

absl::StatusOr<CompiledModule> CompileModule(const std::vector<tir::PrimFunc>& funcs,
                                             const Target& target, bool optimize) {
  const Backend& backend = BackendFor(target);
  if (absl::Status s = ValidatePrimFuncs(funcs, backend.gpu()); !s.ok()) return s;
  absl::StatusOr<CompiledModule> out = PrepareModule(target);
  if (!out.ok()) return out.status();
  absl::StatusOr<std::unique_ptr<llvm::Module>> module = backend.BuildModule(funcs, target, *out->machine, *out->context);
  if (!module.ok()) return module.status();
  out->module = std::move(*module);
  if (absl::Status s = VerifyLlvmModule(*out->module); !s.ok()) return s;
  if (optimize) OptimizeLlvmModule(*out->module, *out->machine);
  return out;
}

}  // namespace tunefarm::codegen
