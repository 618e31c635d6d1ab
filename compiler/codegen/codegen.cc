#include "compiler/codegen/codegen.h"

#include "compiler/codegen/backend.h"
#include "compiler/codegen/compile_module.h"
#include "compiler/codegen/embedded_blob.h"
#include "compiler/codegen/llvm_codegen.h"
#include "compiler/codegen/object_emitter.h"
#include "common/strings.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {

namespace {

absl::Status RequireCpu(const Target& target, std::string_view what) {
  if (!target.IsCuda()) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat("target \"", target.ToString(), "\" is a GPU: it has no ", what,
                                           " (BuildKernelLibrary gives its PTX)"));
}

}  // namespace

absl::StatusOr<std::string> BuildKernelLibrary(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                               const std::vector<EmbeddedBlob>& blobs) {
  // A library of blobs alone is a GPU model artifact's host object (its kernels are PTX).
  if (funcs.empty() && blobs.empty()) return absl::InvalidArgumentError("no PrimFuncs to compile");
  absl::StatusOr<CompiledModule> compiled = CompileModule(funcs, target, /*optimize=*/true);
  if (!compiled.ok()) return compiled.status();
  return BackendFor(target).EmitLibrary(*compiled->module, *compiled->machine, blobs);
}

absl::StatusOr<std::string> BuildObject(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                        const std::vector<EmbeddedBlob>& blobs, AbiGlobals globals) {
  if (absl::Status s = RequireCpu(target, "object file"); !s.ok()) return s;
  if (funcs.empty() && blobs.empty()) return absl::InvalidArgumentError("no PrimFuncs to compile");
  absl::StatusOr<CompiledModule> compiled = CompileModule(funcs, target, /*optimize=*/true);
  if (!compiled.ok()) return compiled.status();
  if (globals == AbiGlobals::kElsewhere) LeaveLibraryGlobalsToAnotherObject(*compiled->module);
  // Added after the O3 pipeline: no pass has anything to do with opaque bytes.
  if (absl::Status s = AddEmbeddedBlobs(blobs, *compiled->module); !s.ok()) return s;
  return EmitObjectFile(*compiled->module, *compiled->machine);
}

absl::StatusOr<std::string> BuildLibraryGlobalsObject(const std::vector<tir::PrimFunc>& entries,
                                                      const Target& target) {
  if (absl::Status s = RequireCpu(target, "object file"); !s.ok()) return s;
  absl::StatusOr<CompiledModule> compiled = PrepareModule(target);
  if (!compiled.ok()) return compiled.status();
  compiled->module = BuildLibraryGlobalsModule(entries, target, *compiled->machine, *compiled->context);
  return EmitObjectFile(*compiled->module, *compiled->machine);
}

absl::StatusOr<std::string> BuildSharedObject(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                              const std::vector<EmbeddedBlob>& blobs) {
  if (absl::Status s = RequireCpu(target, "shared object"); !s.ok()) return s;
  return BuildKernelLibrary(funcs, target, blobs);
}

absl::StatusOr<std::string> BuildSharedObject(const std::vector<tir::PrimFunc>& funcs,
                                              const Target& target) {
  return BuildSharedObject(funcs, target, {});
}

absl::StatusOr<std::string> EmitLlvmIr(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                       bool optimized) {
  absl::StatusOr<CompiledModule> compiled = CompileModule(funcs, target, optimized);
  if (!compiled.ok()) return compiled.status();
  std::string text;
  llvm::raw_string_ostream os(text);
  compiled->module->print(os, nullptr);
  os.flush();
  return text;
}

absl::StatusOr<std::string> BuildObjectFromLlvmIr(std::string_view llvm_ir, const Target& target) {
  absl::StatusOr<CompiledModule> compiled = PrepareModule(target);
  if (!compiled.ok()) return compiled.status();
  llvm::SMDiagnostic diagnostic;
  compiled->module = llvm::parseAssemblyString(llvm::StringRef(llvm_ir.data(), llvm_ir.size()),
                                               diagnostic, *compiled->context);
  if (compiled->module == nullptr) {
    return absl::InvalidArgumentError(StrCat("LLVM IR line ", diagnostic.getLineNo(), ": ",
                                             diagnostic.getMessage().str()));
  }
  compiled->module->setTargetTriple(compiled->machine->getTargetTriple().str());
  compiled->module->setDataLayout(compiled->machine->createDataLayout());
  if (absl::Status s = VerifyLlvmModule(*compiled->module); !s.ok()) return s;
  OptimizeLlvmModule(*compiled->module, *compiled->machine);
  return EmitObjectFile(*compiled->module, *compiled->machine);
}

}  // namespace tunefarm::codegen
