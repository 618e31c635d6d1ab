#include "compiler/codegen/host_target.h"

#include <memory>
#include <set>

#include "compiler/codegen/llvm_target.h"
#include "common/strings.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Host.h"

namespace tunefarm::codegen {

Target HostTarget() {
  InitializeLlvmTargets();
  Target t;
  t.triple = CanonicalTriple(llvm::sys::getProcessTriple());
  std::string cpu = llvm::sys::getHostCPUName().str();
  t.cpu = cpu == "generic" ? "" : cpu;
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(llvm::sys::getProcessTriple(), error);
  if (target == nullptr) return t;
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(llvm::sys::getProcessTriple(), cpu, ""));
  std::set<std::string> known;
  for (const llvm::SubtargetFeatureKV& kv : sti->getAllProcessorFeatures()) known.insert(kv.Key);
  std::set<std::string> disabled;
  for (const auto& entry : llvm::sys::getHostCPUFeatures()) {
    std::string name = entry.getKey().str();
    if (!entry.getValue() && known.count(name) && sti->checkFeatures(StrCat("+", name))) {
      disabled.insert(StrCat("-", name));
    }
  }
  t.features.assign(disabled.begin(), disabled.end());  // sorted by name, as Target requires
  return t;
}

}  // namespace tunefarm::codegen
