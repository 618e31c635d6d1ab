// What a tiled stage's tile reuses: for each operand the stage reads, which axes of the tile its
// index uses. A tile of T_a points along each space axis a computes prod(T_a) points at each
// reduce point, and reads prod(T_a over the axes its index uses) elements of each operand
// there. Growing an axis that fewer operands use saves more loads, the more so the larger the
// tiles of the others: a GEMM's rows and columns alike (one operand each); a conv's output
// channels (the weights only) against its rows and columns (the input only); a batch axis
// (every operand) saves nothing. The GPU default program (gpu_default_program.h) grows its
// register tiles and blocks so.
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

  // Elements read per point computed, at one reduce point, by a tile of `tile` points along
  // each axis (the order of `uses`; a body that reads one element several times loads it once).
  double LoadsPerPoint(const std::vector<int64_t>& tile) const;
};

// The operands of the stage that `split_steps` (steps of `s`'s history, each splitting an
// original space axis of one stage) tile, in the order of `split_steps`. The history is replayed
// to those steps, where the split iterators name their axes, and the stage's reads are those of
// the DAG as it was there (stage indices and tensor ids shift as cache stages are added).
absl::StatusOr<TileOperands> TileOperandsOf(const schedule::State& s, const std::vector<size_t>& split_steps);

}  // namespace tunefarm::tuner
