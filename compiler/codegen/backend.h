// The seam between the shared front of code generation (validation, the LLVM module's O3
// pipeline, the kernel metadata) and what differs per kind of target:
//  - "llvm" (x86-64, AArch64 CPUs): entries called through the kernel ABI, parallel loops
//    through the host API; the library is an ELF shared object (llvm_codegen.h);
//  - "cuda" (NVIDIA GPUs, LLVM's NVPTX backend): each entry a sequence of kernel launches;
//    the library is PTX text (nvptx_codegen.h, docs/kernel-abi.md "GPU kernel libraries").
// Code generation asks BackendFor(target) and nothing else looks at the target's kind.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/target.h"
#include "compiler/tir/stmt.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace tunefarm::codegen {

class Backend {
 public:
  virtual ~Backend() = default;
  // Whether the target is a GPU: thread bindings allowed, parallel loops refused.
  virtual bool gpu() const = 0;
  // Validated PrimFuncs -> the module, before optimization.
  virtual absl::StatusOr<std::unique_ptr<llvm::Module>> BuildModule(const std::vector<tir::PrimFunc>& funcs,
                                                                    const Target& target, llvm::TargetMachine& tm,
                                                                    llvm::LLVMContext& ctx) const = 0;
  // The optimized module (plus `blobs`) -> the kernel library's bytes.
  virtual absl::StatusOr<std::string> EmitLibrary(llvm::Module& module, llvm::TargetMachine& tm,
                                                  const std::vector<EmbeddedBlob>& blobs) const = 0;
};

// The backend of the target's kind (Target::Parse admits only kinds that have one).
const Backend& BackendFor(const Target& target);

}  // namespace tunefarm::codegen
