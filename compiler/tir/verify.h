// Structural checks of a PrimFunc: what codegen and the interpreter assume.
#pragma once

#include "absl/status/status.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

// Every variable bound by exactly one enclosing loop; buffer ids valid; store values of the
// buffer's dtype; indices int64; vectorized/unrolled loops of constant extent; no te-only
// leaves (kAxis, kReduceAxis) left; workspace buffers inside the workspace.
absl::Status Verify(const PrimFunc& f);

}  // namespace tunefarm::tir
