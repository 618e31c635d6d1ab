// Loop partitioning: a serial loop whose body tests its variable against constant bounds (the
// border of a padded read, `0 <= w - 1 < 56`) is split into the iterations before the range
// where every such test holds, that range, and the iterations after it. In the middle loop the
// tests are provably true and the clamps that keep padded loads in bounds are provably the
// identity, so the simplifier removes both: a padded copy becomes a plain copy there.
//
// Only the simplifier rewrites anything (after the loop variable is shifted and its new range
// bound), so the split is exact whatever the tests are; a test that is not linear in the
// variable with constant bounds is ignored when choosing the range and stays in all three loops.
// Only the innermost loop with such tests on each path is split, so the body is emitted at most
// three times. As TVM's LoopPartition, without symbolic bounds.
#pragma once

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

Stmt PartitionLoops(const Stmt& s);

}  // namespace tunefarm::tir
