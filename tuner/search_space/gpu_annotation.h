// Random annotation for a GPU (a cuda target): a GPU sketch (gpu_sketch_rules.h) becomes a
// complete program. Each call draws, in this order:
//  1. tile sizes  each tiled stage's space splits (S1: virtual threads, S2: threads, S3 and
//                 S4: the register tile) drawn together until the block has at most the
//                 target's threads per block, and at least 32 (a warp) when the tile allows,
//                 each thread at most kMaxVirtualThreads virtual threads and at most
//                 AccumulatorsPerThread(block size) accumulators for all of them (64, or
//                 half a thread's share of the register file); reduce splits freely
//                 (innermost at most 64). Up to kGpuTileDraws uniform tries; then a draw that
//                 keeps the per-thread budgets by construction (long axes rarely fit
//                 uniformly), and the launch check of LowerProgram refuses what breaks a limit.
//                 All of it again (up to 32 times) while the shared tiles, estimated from the
//                 lengths (shared_tiles.h), overflow the block's shared memory. Each fetch's
//                 lanes (1, 2 or 4) among those it can move at once (FetchLanesFit).
//  2. bindings    the copy-out of a tiled stage: its fused S0 loop to blockIdx.x, its fused S1
//                 loop to vthread and its fused S2 loop to threadIdx.x; each shared copy's
//                 fetch loop to threadIdx.x and its lanes vectorized, and its rows padded with
//                 probability 1/2 when they are of even length and the padded tiles still fit;
//                 every other root stage fused and split by a block size drawn from 32..1024
//                 (BindToBlocksAndThreads).
//  3. auto-unroll as on a CPU (random_annotation.h phase 6): unrolled, a thread's register tile
//                 is indexed by constants, so it stays in registers.
// Compute locations stay where the sketch put them; nothing is parallel (a GPU's parallelism
// is its threads).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"
#include "tuner/search_space/gpu_sketch_rules.h"
#include "tuner/search_space/search_target.h"
#include "tuner/search_space/shared_tiles.h"

namespace tunefarm::tuner {

inline constexpr int kGpuTileDraws = 64;
// A tiled stage's space split: {S1, S2, S3, S4} (gpu_sketch_rules.h).
inline constexpr int kGpuTiledSplitLengths = 4;

absl::StatusOr<schedule::State> AnnotateRandomlyForGpu(const schedule::State& sketch, const SearchTarget& target,
                                                       std::mt19937_64& rng);

// Phase 2's choices, drawn by AnnotateRandomlyForGpu and fixed by the default program
// (gpu_default_program.h).
struct GpuBindChoices {
  std::function<int64_t()> block_size;  // for a root stage bound one thread per point
  std::function<bool()> pad_rows;       // for a shared tile whose rows padding would change
};
// Phase 2 on a program whose tile sizes are filled.
absl::Status BindGpuStages(schedule::State* s, const SearchTarget& target, const GpuBindChoices& choices);

// The lengths of kFetchLanes (ascending) that a fetch into `tile` can move at once
// (FetchLanesFit); just 1 when the tile's shape is not known.
std::vector<int64_t> LanesThatFit(const absl::StatusOr<SharedTile>& tile);

// Whether the shared tiles of the gpu-tile stage `local` (an X.local) fit a block's shared
// memory, the target's and at most what static shared arrays may hold, as far as they are known
// before lowering (shared_tiles.h); true where they are not (lowering checks those).
bool TileFitsSharedMemory(const schedule::State& s, int local, const SearchTarget& target);
// The same for every gpu-tile stage of the program.
bool SharedTilesFit(const schedule::State& s, const SearchTarget& target);
// `s` with the rows of its shared stage `stage` padded (PadRows), or nullopt where its kernel's
// padded tiles would overflow the block's shared memory.
absl::StatusOr<std::optional<schedule::State>> PaddedIfItFits(const schedule::State& s, int stage,
                                                              const SearchTarget& target,
                                                              int factor = kRowPadFactor, int offset = kRowPadOffset);

// `program` after its tile sizes changed (the tile-size mutation, a replay of the default
// program with mutated splits): a fetch whose lanes no longer fit its tile (FetchLanesFit) gets
// the most lanes of kFetchLanes that do, and padding that no longer pads the tile's rows
// (shared_tiles.h RowDim), or that would leave them as they are, is dropped. The program itself
// when nothing changes.
absl::StatusOr<schedule::State> FitFetchesToTiles(const schedule::State& program);

}  // namespace tunefarm::tuner
