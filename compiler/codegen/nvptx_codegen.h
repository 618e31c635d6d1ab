// PrimFuncs -> one llvm::Module for LLVM's NVPTX backend (a cuda target). Each PrimFunc runs as
// the launches tir::PlanGpuLaunches gives it; each launch is one PTX kernel
//   void <name>_k<i>(T0* arg0, ..., T(n-1)* arg(n-1), char* workspace)
// (the PrimFunc's arguments in ABI order, then the workspace), marked as a kernel with its
// block shape as maxntid. Loops bound to blockIdx/threadIdx read %ctaid/%tid instead of
// looping; every other loop runs inside each thread. The module also defines, in global
// memory, tunefarm_abi_version and tunefarm_metadata, whose entries carry their launches
// (docs/kernel-abi.md, "GPU kernel libraries").
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/stmt.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace tunefarm::codegen {

// The device limits of a cuda target, as the launch planner takes them.
tir::GpuLimits GpuLimitsOf(const Target& target);

// `funcs` must have passed ValidatePrimFuncs(funcs, /*gpu=*/true). A launch that breaks the
// target's limits, or a kernel name that collides with an entry, is an InvalidArgument error.
absl::StatusOr<std::unique_ptr<llvm::Module>> BuildNvptxModule(const std::vector<tir::PrimFunc>& funcs,
                                                               const Target& target, llvm::TargetMachine& tm,
                                                               llvm::LLVMContext& ctx);

}  // namespace tunefarm::codegen
