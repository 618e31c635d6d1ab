// Bounds inference for compute_at: the region of a producer that a consumer's iterations below
// the attach loop read.
#pragma once

#include <unordered_map>
#include <vector>

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

// One dimension of a region: [min, min + extent), min an expression of the loops enclosing the
// attach point, extent a constant.
struct AxisRegion {
  Expr min;
  int64_t extent;
};

// `accesses`: the consumer's index lists for the producer, in loop variables; `inner`: the loop
// variables below the attach point with their extents. A dimension whose accesses are not
// linear in the inner loops (or whose accesses differ by a non-constant offset) gets the whole
// dimension.
std::vector<AxisRegion> InferRegion(const std::vector<std::vector<Expr>>& accesses,
                                    const std::unordered_map<int64_t, int64_t>& inner,
                                    const std::vector<int64_t>& shape);

}  // namespace tunefarm::tir
