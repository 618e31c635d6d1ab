// Checks that PrimFuncs are well-formed before code generation, so that a malformed input (a
// bug in a lowering, or a hand-built function) is a clear InvalidArgument Status naming the
// function and the statement at fault, never an LLVM assertion or a crash.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::codegen {

// Checks, per function: a C identifier name not starting with "tunefarm_", unique across
// `funcs`; argument buffers first (inputs and params before outputs, unique non-empty names,
// ranges only on integer arguments), workspace buffers 64-byte aligned inside workspace_bytes;
// every loop variable an int64 var bound once; every used variable bound by an enclosing loop;
// loads/stores naming a valid buffer with its dtype and one integer index; no kAxis/kReduceAxis.
// Thread-binding loops only for a GPU (`gpu`), parallel loops only for a CPU.
absl::Status ValidatePrimFuncs(const std::vector<tir::PrimFunc>& funcs, bool gpu = false);

}  // namespace tunefarm::codegen
