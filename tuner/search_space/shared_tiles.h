// The shared tiles of a program drawn from the gpu-tile sketch (gpu_sketch_rules.h), known from
// its split lengths before it is lowered. Annotation needs them to draw what depends on a
// tile's shape: fetch lanes that divide its innermost dimension (row(): else the 128-bit copy
// falls back to one access per element), padding only for rows of even length (RowDim(): the
// innermost dimension longer than 1; an odd row is left as it is, so padding it would only give
// a second record of the same kernel), and tile sizes whose tiles
// fit the block's shared memory (else lowering refuses the program, after the whole cost of
// lowering it: three of four draws of a GEMM 4096^3).
//
// A tile Pi.shared is computed at X.local's last R0 loop and relaxed over the copy-out's
// virtual-thread and thread loops, so along each of X.local's space axes it covers every level
// but the blocks' (S1..S4) and along each reduce axis the levels inside the step (R1, R2).
// Its region follows from X.local's index expressions for Pi by the same inference lowering
// uses (tir/region_inference.h); tests check it against the lowered buffers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"

namespace tunefarm::tuner {

struct SharedTile {
  int stage = -1;
  std::vector<int64_t> extents;  // the region, per dimension of the tensor it copies
  // False when some dimension's index is not linear in the tile's loops (a grouped conv's
  // channel, ff / k_per_group * cg + rc): the estimate then takes the whole dimension, where
  // lowering, which knows the block's offsets, may bound it. Its bytes are then an upper bound.
  bool exact = true;
  std::vector<int64_t> allocated;  // the buffer's shape: `extents`, a dimension padded ("SA")
  int element_bytes = 4;
  // Whether its fetch is one plain load a lane: it copies a placeholder or a stage of its own,
  // not one inlined into it (a conv's padding, which the GPU sketch inlines, makes the fetch a
  // select, which code generation never moves several lanes at once).
  bool plain_copy = true;
  int64_t bytes = 0;             // allocated, padding included
  // The innermost dimension: what a fetch's lanes cover.
  int64_t row() const { return extents.empty() ? 1 : extents.back(); }
  // The innermost dimension longer than 1 (0 when there is none): the rows that padding
  // spreads over the banks. A 1x1 conv's weights [K, C, 1, 1] have rows of C.
  int RowDim() const {
    int d = static_cast<int>(extents.size()) - 1;
    while (d > 0 && extents[d] == 1) --d;
    return std::max(d, 0);
  }
};

// The tile of `stage`, a shared stage computed at a loop of a gpu-tile X.local. Every split
// length of X.local must be filled. FailedPrecondition when the stage is not such a tile (only
// lowering knows its shape then).
absl::StatusOr<SharedTile> EstimateSharedTile(const schedule::State& s, int stage);

// The shared bytes a block of the gpu-tile stage `local` (an X.local) allocates: the sum of the
// tiles computed at its loops, each aligned as code generation aligns it (tir/gpu_launch.h).
// FailedPrecondition when a tile is not known exactly (only lowering knows then).
absl::StatusOr<int64_t> SharedBytesOfTile(const schedule::State& s, int local);

}  // namespace tunefarm::tuner
