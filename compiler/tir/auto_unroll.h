// The auto_unroll_max_step pragma: marks a stage's inner serial loops as unrolled while the
// unrolled body stays within max_step statements (innermost loops first).
#pragma once

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

Stmt AutoUnroll(const Stmt& nest, int max_step);

}  // namespace tunefarm::tir
