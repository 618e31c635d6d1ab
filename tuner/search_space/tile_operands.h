// What a tiled stage's tile reuses: for each operand the stage reads, which axes of the tile its
// index uses. A tile of T_a points along each space axis a computes prod(T_a) points at each
// step along the reduction, and reads prod(T_a over the axes its index uses) elements of each
// operand there. So the axis whose growth saves the most loads is the one the fewest operands
// use: a GEMM's rows and columns alike (one operand each); a conv's output channels (the
// weights only) before its rows and columns (the input only); a batch axis (every operand)
// saves nothing. The GPU default program (gpu_default_program.h) grows its register tiles and
// blocks so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"

namespace tunefarm::tuner {

struct TileOperands {
  // One entry per index list the stage reads an operand with: for each axis of the tile (in the
  // order of the split steps it was made from), whether that index uses it.
  std::vector<std::vector<bool>> uses;

  // Elements read per point computed, at one step along the reduction, by a tile of `tile`
  // points along each axis (the order of `uses`).
  double LoadsPerPoint(const std::vector<int64_t>& tile) const;
};

// The operands of the stage that `split_steps` (steps of `s`'s history, each splitting an
// original space axis of one stage) tile, in the order of `split_steps`. The stage's reads are
// those of the DAG as it was at those steps (the history is replayed to there): a cache stage
// added later reads the same elements under another name.
absl::StatusOr<TileOperands> TileOperandsOf(const schedule::State& s, const std::vector<size_t>& split_steps);

}  // namespace tunefarm::tuner
