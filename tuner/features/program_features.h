// Per-store program features (Ansor's): what the cost model sees of a lowered loop nest.
//
// A program is described one buffer store at a time: every kStore statement of the loop nest
// gives one row, in program order, and every row has the same columns (StoreFeatureNames()).
// A store stands for all of its executions: the loops around it multiply what it does. The
// columns, in groups (the names spell out each one):
//
//  - compute: operations of the stored value by kind, float and int (mul+add pairs count once,
//    as mad), bool ops, selects and casts, times the number of executions. Index arithmetic is
//    counted too, as int ops: it is work the kernel does.
//  - loop annotations: for vectorized, unrolled and parallel loops around the store, how many,
//    the product of their extents, the extent of the innermost one and its position (one-hot:
//    none, inner / middle / outer among the store's spatial loops or among its reduce loops,
//    mixed). A loop is a reduce loop of a store when the written element does not depend on it.
//    The auto_unroll_max_step pragma is visible only through the loops it marked unrolled.
//  - buffer accesses: the buffers the store touches (the written one and those its value
//    reads), sorted by bytes moved, largest first, the first five kept (the written buffer is
//    always kept), missing slots zero. Per buffer: access type (read, write, read-write; one-hot),
//    bytes moved, unique bytes, cache lines moved and unique cache lines, reuse type (one-hot:
//    loop-carried, serial multiple read, none), reuse distance in iterations and in bytes,
//    reuse count, the four sizes divided by the reuse count, and the stride (in elements) with
//    respect to the innermost loop the index depends on.
//  - arithmetic intensity curve: float ops per byte of distinct data touched, at each loop level
//    from the innermost outwards, sampled at ten evenly spaced points of the (log) op count.
//  - allocation: for a store to a local or shared buffer, its size and how often it is allocated.
//  - nest: product of the loop extents, number of loops, enclosing guards, innermost extent,
//    whether the store is a reduction update (reads the element it writes), the store's buffer
//    scope (one-hot: argument, workspace, local, shared), the function's workspace bytes and the
//    local and shared bytes live at the store.
//  - GPU: the extents of the loops bound to blockIdx.x/y/z and threadIdx.x/y/z around the store
//    (0 on a CPU), as Ansor's GPU features; and the most ways a warp's access of a shared
//    buffer at the store (its own, or a load in its value) is replayed for bank conflicts
//    (tir/shared_bank_conflicts.h; 0 without one), which Ansor does not have.
//
// Magnitudes go through log2(1 + x), as Ansor's do; counts of loops or guards, one-hots and the
// intensity curve do not.
//
// Index analysis. Each buffer index is read as an affine function of the enclosing loop
// variables (one coefficient per loop, found in one pass over the index). Parts that are not
// affine are approximated: x / c scales x's coefficients by 1/c, x % c keeps them, min/max and
// select take one arm, a gathered index (a load) contributes nothing. From the coefficients and
// the loop extents come the footprint of an access at every loop level (the lesser of the number
// of index values and the index span, capped at the buffer's size), the reuse loops and the
// strides. Extents are constants after lowering; a non-constant extent counts as 1.
//
// Cost: one walk over the loop nest with a stack of the enclosing loops; per store, work linear
// in (loops x accesses) and in the size of its expressions. No per-store maps or strings.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/tir/stmt.h"
#include "tuner/features/feature_matrix.h"

namespace tunefarm::tuner {

// One row per buffer store of `func`, StoreFeatureNames().size() columns. InvalidArgument when
// an index names a variable that is not an enclosing loop, or a buffer `func` does not have.
absl::StatusOr<FeatureMatrix> ExtractFeatures(const tir::PrimFunc& func);

// The name of each column, in order.
const std::vector<std::string>& StoreFeatureNames();

}  // namespace tunefarm::tuner
