// The code generator's public API: loop-IR PrimFuncs -> kernels following the kernel ABI
// (deploy/tunefarm_abi.h) through LLVM 19. No LLVM type appears here; every failure (a
// malformed PrimFunc, a bad target, an LLVM verifier error, a link error) is a Status.
// How loops, vectors, parallelism and math are emitted: docs/codegen.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/tir/stmt.h"
#include "deploy/tunefarm_abi.h"

namespace tunefarm::codegen {

// Data embedded in a kernel library: exported as `symbol` (a const byte array, `alignment`-aligned,
// in `section` when not empty) and `symbol`_size (a const uint64_t holding bytes.size()).
// Each blob is one LLVM constant over the raw bytes, so its cost is a copy, whatever its size
// (docs/model-artifact.md: the model plan and parameters travel this way).
struct EmbeddedBlob {
  std::string symbol;  // a C identifier that no kernel or ABI symbol uses
  std::string bytes;
  int64_t alignment = 64;  // a power of two
  std::string section;     // e.g. ".rodata" or ".tunefarm.params"; empty: the default
};

// The kernel library's bytes for the target: an ELF shared object for a CPU ("llvm"; as
// BuildSharedObject), PTX text for a GPU ("cuda"; docs/kernel-abi.md, "GPU kernel libraries",
// which embeds no blobs).
absl::StatusOr<std::string> BuildKernelLibrary(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                               const std::vector<EmbeddedBlob>& blobs = {});

// The kernel library as a shared object's bytes: one entry per PrimFunc plus the ABI symbols
// and `blobs`. The same inputs give the same bytes, in any process.
absl::StatusOr<std::string> BuildSharedObject(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                              const std::vector<EmbeddedBlob>& blobs);
absl::StatusOr<std::string> BuildSharedObject(const std::vector<tir::PrimFunc>& funcs,
                                              const Target& target);

// The same code as an ELF relocatable object (e.g. for an AArch64 target from an x86 host).
// kElsewhere: the object has only the entries; the library's ABI globals come from another
// object linked with it, made by BuildLibraryGlobalsObject over every entry of the library
// (the tuner links a batch of candidates, each compiled on its own, into one library).
enum class AbiGlobals { kDefine, kElsewhere };
absl::StatusOr<std::string> BuildObject(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                        const std::vector<EmbeddedBlob>& blobs = {},
                                        AbiGlobals globals = AbiGlobals::kDefine);
// The ABI globals alone (version, metadata describing `entries`, the host API pointer).
absl::StatusOr<std::string> BuildLibraryGlobalsObject(const std::vector<tir::PrimFunc>& entries,
                                                      const Target& target);

// The LLVM IR text of the module, before or after the O3 pipeline (for debugging and tests).
absl::StatusOr<std::string> EmitLlvmIr(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                       bool optimized = true);

// Verifies, optimizes and emits LLVM IR text (e.g. an edited EmitLlvmIr dump) as an object.
absl::StatusOr<std::string> BuildObjectFromLlvmIr(std::string_view llvm_ir, const Target& target);

// The same kernels compiled in memory with LLVM's ORC JIT, for tests and the tuner's local
// checks. `target` must describe this machine (e.g. HostTarget()).
class JitModule {
 public:
  static absl::StatusOr<std::unique_ptr<JitModule>> Compile(const std::vector<tir::PrimFunc>& funcs,
                                                            const Target& target);
  ~JitModule();
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;

  // The entry named `name`, or null.
  tunefarm_kernel_fn Lookup(std::string_view name) const;
  // Sets the module's tunefarm_host_api (null until set: parallel loops then fail with
  // TUNEFARM_ERR_NO_HOST_API).
  void SetHostApi(const tunefarm_host_api* api);

 private:
  struct State;
  explicit JitModule(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace tunefarm::codegen
