// Lowering a schedule State to the loop IR:
//   buffers (arguments in ABI order, scratch in the workspace)
//   -> one loop nest per stage (loops from its iterators; original axes rebuilt from the split
//      and fuse relations; a guard wherever a split does not divide its extent)
//   -> reductions split into an init nest and an update nest
//   -> auto-unroll pragma
//   -> simplify -> verify.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

absl::StatusOr<PrimFunc> Lower(const schedule::State& state, std::string_view name);

}  // namespace tunefarm::tir
