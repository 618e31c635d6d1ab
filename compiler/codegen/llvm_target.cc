#include "compiler/codegen/llvm_target.h"

#include <cstdlib>
#include <mutex>
#include <optional>

#include "absl/status/status.h"
#include "common/strings.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

namespace tunefarm::codegen {

void InitializeLlvmTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // LLVM's own cl::opts (e.g. "-misched=..."), for experiments on code generation time
    // against kernel speed; unset in normal use. A bad option prints LLVM's error and exits.
    if (std::getenv("TUNEFARM_LLVM_OPTIONS") != nullptr) {
      const char* argv[] = {"tunefarm"};
      llvm::cl::ParseCommandLineOptions(1, argv, "", nullptr, "TUNEFARM_LLVM_OPTIONS");
    }
  });
}

namespace {

// The PTX ISA version is left to LLVM: each sm_NN implies the least version that has it
// (sm_80: 7.0, sm_87: 7.4, sm_90: 7.8), which every ptxas that knows the arch accepts.
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateNvptxMachine(const Target& target,
                                                                        const llvm::Target& nvptx,
                                                                        const std::string& where) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti(nvptx.createMCSubtargetInfo(target.triple, target.arch, ""));
  if (!sti->isCPUStringValid(target.arch)) {
    return absl::InvalidArgumentError(StrCat(where, "LLVM's NVPTX backend does not know ", target.arch));
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(nvptx.createTargetMachine(
      target.triple, target.arch, /*Features=*/"", options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) return absl::InternalError(StrCat(where, "LLVM could not create an NVPTX target machine"));
  return tm;
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const Target& target) {
  InitializeLlvmTargets();
  const std::string where = StrCat("target \"", target.ToString(), "\": ");
  if (target.kind != "llvm" && !target.IsCuda()) return absl::InvalidArgumentError(StrCat(where, "unknown kind"));
  llvm::Triple triple(target.triple);
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(triple.str(), error);
  if (llvm_target == nullptr) return absl::InvalidArgumentError(StrCat(where, error));
  if (target.IsCuda()) return CreateNvptxMachine(target, *llvm_target, where);
  const std::string cpu = target.cpu.empty() ? "generic" : target.cpu;
  std::unique_ptr<llvm::MCSubtargetInfo> sti(llvm_target->createMCSubtargetInfo(triple.str(), cpu, ""));
  if (!sti->isCPUStringValid(cpu)) {
    return absl::InvalidArgumentError(StrCat(where, "unknown cpu \"", cpu, "\" for ", target.triple));
  }
  for (const std::string& f : target.features) {
    bool known = false;
    for (const llvm::SubtargetFeatureKV& kv : sti->getAllProcessorFeatures()) {
      known = known || f.substr(1) == kv.Key;
    }
    if (!known) {
      return absl::InvalidArgumentError(StrCat(where, "unknown feature \"", f, "\" for ", target.triple));
    }
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(llvm_target->createTargetMachine(
      triple.str(), cpu, StrJoin(target.features, ","), options, llvm::Reloc::PIC_,
      llvm::CodeModel::Small, llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) return absl::InternalError(StrCat(where, "LLVM could not create a target machine"));
  return tm;
}

MathOptions MathOptionsFor(const llvm::TargetMachine& tm) {
  MathOptions options;
  if (tm.getTargetTriple().isX86()) {
    options.native_rounding = tm.getMCSubtargetInfo()->checkFeatures("+sse4.1");
  }
  return options;
}

}  // namespace tunefarm::codegen
