// The loop structure sketch rules give a reuse-heavy stage (GEMM, conv): multi-level tiling.
// With the CPU structure "SSRSRS" every space axis is split into four levels and every reduce
// axis into two, and the loops are ordered S0 S1 R0 S2 R1 S3 (each letter: that level of every
// axis of its kind, in axis order). The split lengths are left unfilled: random annotation
// draws them. Axes of extent 1 are not split; they stay in the outermost group of their kind.
//
// A consumer that reads the tiled stage point by point (an epilogue, or the copy-out stage of a
// cache_write) is fused by tiling it like the stage's outer `level` space levels
// (follow_split, so it changes when the stage's tile sizes change) and computing the stage at
// the consumer's innermost loop of those levels: level 1 computes one S0 tile at a time,
// level 2 one S1 tile.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/iter_lookup.h"
#include "compiler/schedule/state.h"

namespace tunefarm::tuner {

inline constexpr std::string_view kCpuTileStructure = "SSRSRS";

struct TiledStage {
  std::vector<int> space_axes;   // the space axes that were split, ascending
  std::vector<int> split_steps;  // the index of each one's split step in the state's history
};

// Tiles `stage` (at the root, untouched) with `structure` ("S"/"R" per level, outermost first).
absl::StatusOr<TiledStage> TileMultiLevel(schedule::State* state, int stage,
                                          std::string_view structure = kCpuTileStructure);

// Tiles `consumer` like the outer `level` space levels of `producer` (tiled as `tiles`) and
// computes `producer` at the innermost of those loops. Needs 1 <= level < the space levels.
absl::Status FuseIntoConsumer(schedule::State* state, int producer, int consumer, const TiledStage& tiles, int level);

}  // namespace tunefarm::tuner
