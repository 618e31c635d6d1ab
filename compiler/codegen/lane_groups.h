// Lane groups: a short vectorized loop widened with the loop around it (docs/codegen.md,
// "Lane groups").
//
// A vectorized loop of E lanes, fewer than one register holds, leaves the rest of the register
// idle: an NCHW8c block is 8 floats, half of an AVX-512 register. When such a loop v is the whole
// body of a serial or unrolled loop u, codegen runs g = native/E iterations of u at once, as one
// chunk of g*E lanes: lane l is (u = u0 + l/E, v = l%E). Each group of E lanes is one iteration
// of u. That is only safe when the iterations of u are as independent as the lanes of v:
//  - no condition in the body depends on u;
//  - every store's index is affine in u and v with stride 1 in v and E in u, so the chunk's
//    lanes write distinct addresses, which form one contiguous vector (a store that depends on
//    neither is allowed: every lane writes the same value);
//  - a buffer the body stores to is loaded only at the index it is stored at, so a lane reads
//    only what it wrote itself.
// A reduction loop around the vector loop (its stores do not depend on u) fails the store rule.
// Loads may have any shape: contiguous, an E-wide load repeated per group (weights of a block),
// one value per group (an input pixel per group), or a gather.
#pragma once

#include <optional>
#include <string>

#include "compiler/codegen/target.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::codegen {

struct LaneGroupPlan {
  int groups = 0;      // iterations of the outer loop per chunk; 0 when it is not widened
  std::string reason;  // why not (for logs and tests)
  bool narrow = false; // the body is a vectorized loop narrower than a register, widened or not
};

// Whether the loop `outer`, whose body is a vectorized loop, runs several of its iterations per
// vector chunk, and how many.
LaneGroupPlan PlanLaneGroups(const tir::StmtNode& outer, const Target& target);

// The coefficient of loop variable `var` in the int64 expression `e` when `e` is affine in it
// (built from +, - and multiplication by constants); nullopt otherwise. 0 if `e` does not use it.
std::optional<int64_t> AffineCoefficient(const te::Expr& e, int64_t var);

}  // namespace tunefarm::codegen
