// The auto_unroll_max_step pragma: marks a stage's inner serial loops as unrolled while the
// unrolled body stays within max_step statements (innermost loops first).
//
// Virtual-thread injection (virtual_thread.h) runs later and copies a loop's body once per
// virtual thread, so the budget counts those copies too, as TVM's UnrollLoop (which runs after
// InjectVirtualThread) does: inside a virtual-thread loop of V, or in an attached stage whose
// consumer's loops around it hold `virtual_threads` of them, a body unrolls to max_step / V.
// A bound, not an exact count: a statement that does not depend on the virtual thread is
// emitted once, and may unroll less than it could.
#pragma once

#include <cstdint>

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

Stmt AutoUnroll(const Stmt& nest, int max_step, int64_t virtual_threads = 1);

}  // namespace tunefarm::tir
