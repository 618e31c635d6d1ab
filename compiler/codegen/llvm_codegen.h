// PrimFuncs -> one llvm::Module following the kernel ABI (deploy/tunefarm_abi.h):
//  - per PrimFunc an exported entry `int32_t name(void** args, int32_t num_args, void* ws)`
//    that checks num_args and calls an internal `name.impl` whose pointer parameters are
//    noalias, 64-byte aligned and dereferenceable, so LLVM knows the buffers never alias;
//  - parallel loops outlined into `name.parN` tasks run through tunefarm_host_api;
//  - the exported globals tunefarm_abi_version, tunefarm_metadata and tunefarm_host_api.
// Everything but those symbols and the entries has internal linkage. Output depends only on
// the inputs (names come from the PrimFuncs and emission-order counters), so it is
// deterministic. See docs/codegen.md.
#pragma once

#include <memory>
#include <vector>

#include "compiler/codegen/math_emitter.h"
#include "compiler/codegen/target.h"
#include "compiler/tir/stmt.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace tunefarm::codegen {

// Parallel loops run as at most this many tasks (contiguous chunks of iterations); the host's
// pool hands tasks to threads dynamically, so a few tasks per thread balance the load.
inline constexpr int kMaxParallelTasks = 1024;

// kUnrolled loops with a constant extent up to this many iterations are emitted as copies of
// the body; longer ones become a loop with llvm.loop.unroll.full metadata.
inline constexpr int kMaxUnrolledCopies = 512;

// `funcs` must have passed ValidatePrimFuncs. The module gets `tm`'s triple and data layout.
std::unique_ptr<llvm::Module> BuildLlvmModule(const std::vector<tir::PrimFunc>& funcs,
                                              const Target& target, llvm::TargetMachine& tm,
                                              llvm::LLVMContext& ctx);

// A library linked from several objects (the tuner's batch of candidates, one object each)
// defines the exported globals once: each object's module has them removed (the host API
// pointer becomes a declaration: its loads stay, since the optimizer never knew its value),
// and one more module holds only the globals, its metadata describing every entry.
void LeaveLibraryGlobalsToAnotherObject(llvm::Module& module);
std::unique_ptr<llvm::Module> BuildLibraryGlobalsModule(const std::vector<tir::PrimFunc>& entries,
                                                        const Target& target, llvm::TargetMachine& tm,
                                                        llvm::LLVMContext& ctx);

}  // namespace tunefarm::codegen
