#include "compiler/codegen/object_emitter.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {

absl::Status VerifyLlvmModule(const llvm::Module& module) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (llvm::verifyModule(module, &os)) {
    os.flush();
    return absl::InternalError("LLVM module verification failed: " + message);
  }
  return absl::OkStatus();
}

void OptimizeLlvmModule(llvm::Module& module, llvm::TargetMachine& tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;

  llvm::TargetLibraryInfoImpl library(tm.getTargetTriple());
  library.disableAllFunctions();
  library.setAvailable(llvm::LibFunc_memcpy);
  library.setAvailable(llvm::LibFunc_memset);
  library.setAvailable(llvm::LibFunc_memmove);
  // Registered before the PassBuilder's defaults, so this table is the one used.
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });

  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  llvm::PassBuilder builder(&tm, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
}

namespace {

absl::StatusOr<std::string> EmitFile(llvm::Module& module, llvm::TargetMachine& tm, llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  if (tm.addPassesToEmitFile(passes, os, nullptr, type)) {
    return absl::InternalError(std::string("LLVM cannot emit ") +
                               (type == llvm::CodeGenFileType::ObjectFile ? "an object file" : "assembly") +
                               " for " + tm.getTargetTriple().str());
  }
  passes.run(module);
  return std::string(buffer.data(), buffer.size());
}

}  // namespace

absl::StatusOr<std::string> EmitObjectFile(llvm::Module& module, llvm::TargetMachine& tm) {
  return EmitFile(module, tm, llvm::CodeGenFileType::ObjectFile);
}

absl::StatusOr<std::string> EmitAssembly(llvm::Module& module, llvm::TargetMachine& tm) {
  return EmitFile(module, tm, llvm::CodeGenFileType::AssemblyFile);
}

}  // namespace tunefarm::codegen
