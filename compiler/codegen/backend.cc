#include "compiler/codegen/backend.h"

#include "compiler/codegen/embedded_blob.h"
#include "compiler/codegen/llvm_codegen.h"
#include "compiler/codegen/nvptx_codegen.h"
#include "compiler/codegen/object_emitter.h"
#include "compiler/codegen/shared_object.h"
#include "llvm/IR/Module.h"

namespace tunefarm::codegen {
namespace {

class HostBackend : public Backend {
 public:
  bool gpu() const override { return false; }
  absl::StatusOr<std::unique_ptr<llvm::Module>> BuildModule(const std::vector<tir::PrimFunc>& funcs,
                                                            const Target& target, llvm::TargetMachine& tm,
                                                            llvm::LLVMContext& ctx) const override {
    return BuildLlvmModule(funcs, target, tm, ctx);
  }
  absl::StatusOr<std::string> EmitLibrary(llvm::Module& module, llvm::TargetMachine& tm,
                                          const std::vector<EmbeddedBlob>& blobs) const override {
    // Added after the O3 pipeline: no pass has anything to do with opaque bytes.
    if (absl::Status s = AddEmbeddedBlobs(blobs, module); !s.ok()) return s;
    absl::StatusOr<std::string> object = EmitObjectFile(module, tm);
    if (!object.ok()) return object.status();
    return LinkSharedObject(*object);
  }
};

class NvptxBackend : public Backend {
 public:
  bool gpu() const override { return true; }
  absl::StatusOr<std::unique_ptr<llvm::Module>> BuildModule(const std::vector<tir::PrimFunc>& funcs,
                                                            const Target& target, llvm::TargetMachine& tm,
                                                            llvm::LLVMContext& ctx) const override {
    return BuildNvptxModule(funcs, target, tm, ctx);
  }
  absl::StatusOr<std::string> EmitLibrary(llvm::Module& module, llvm::TargetMachine& tm,
                                          const std::vector<EmbeddedBlob>& blobs) const override {
    if (!blobs.empty()) {
      return absl::UnimplementedError("a GPU kernel library cannot embed data blobs (a model artifact for a GPU "
                                      "keeps its plan and parameters on the host side)");
    }
    return EmitAssembly(module, tm);
  }
};

}  // namespace

const Backend& BackendFor(const Target& target) {
  static const HostBackend host;
  static const NvptxBackend nvptx;
  if (target.IsCuda()) return nvptx;
  return host;
}

}  // namespace tunefarm::codegen
