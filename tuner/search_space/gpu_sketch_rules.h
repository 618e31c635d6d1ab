// Sketch rules for a GPU (a cuda target), Ansor's GPU set. The table,
// tried in order for each stage like the CPU one (sketch_rules.h):
//   1. handled   placeholders, and stages an earlier rule placed: left as they are (skip rest)
//   2. inline    strictly inlinable stages (elementwise, padding) are inlined: recomputing
//                them where they are read costs a few instructions, a stage of its own a
//                launch and a trip through global memory (skip rest)
//   3. gpu-tile  a reuse-heavy stage (a GEMM, a conv): shared memory and register tiles
//                (below) (skip rest)
//   4. cross-thread  a reduction left untiled whose reduce extent is at least a warp: a second
//                sketch where its reduce loops are fused and split, the inner part for
//                threadIdx.x (a cross-thread reduction, tir/lower.cc), its space loops fused
//                for blockIdx.x (apply, and go on: keep gives the first)
//   5. keep      anything else stays at the root; annotation binds it to blocks and threads
//
// gpu-tile, on stage X reading tensors P1..Pn:
//   - each Pi gets a "shared" cache_read stage Pi.shared for X, and X a "local" cache_write
//     stage X.local (the accumulators) with X the copy-out;
//   - X.local is tiled "SSSRRSRS" (kGpuTileStructure): S0 the blocks, S1 the virtual threads,
//     S2 the threads of a block, R0 the steps along the reduction, R1 and R2 the reduction
//     within a step, S3 and S4 each virtual thread's register tile. Its loops then run the
//     reduce levels before the register tile's (S3, S4 innermost), so that an unrolled nest
//     indexes the accumulators by constants;
//   - X follows the first three levels of each split axis: its loops are S0 (all axes fused,
//     blockIdx.x), S1 (fused, vthread), S2 (fused, threadIdx.x), then the register tile;
//     X.local is computed at the S2 loop, so each virtual thread owns an S3 x S4 tile of
//     accumulators and each thread S1 of them (tir/virtual_thread.h), S2 x S3 x S4 points
//     apart along each axis: the threads of a warp read neighbouring elements of the shared
//     tiles rather than elements a whole tile apart. When X's only reader is elementwise on it
//     (a bias, a ReLU), X is inlined into that reader, which takes X's place: the epilogue runs
//     on the registers, in the same launch;
//   - each Pi.shared is computed at X.local's last R0 loop: the block's tiles for one step
//     along the reduction, for all its threads and virtual threads, its loops fused into one,
//     split by the lanes a thread moves at once (1, 2 or 4, drawn by annotation and vectorized:
//     one 128-bit load and store when aligned, nvptx_codegen.cc) and then by the block's
//     thread count (follow_fused_split of the S2 lengths), so the threads fetch it together.
// The bindings themselves are annotation's (gpu_annotation.h): a loop is bound once its extent
// is known.
#pragma once

#include <string_view>
#include <vector>

#include "tuner/search_space/shared_tiles.h"
#include "tuner/search_space/sketch_rules.h"

namespace tunefarm::tuner {

inline constexpr std::string_view kGpuTileStructure = "SSSRRSRS";
// The space levels the copy-out follows (blocks, virtual threads, threads); the rest is the
// register tile. A tiled space split's lengths are {S1, S2, S3, S4}: lengths[0] the virtual
// threads, lengths[1] the threads, lengths[2] and [3] the register tile.
inline constexpr int kGpuCopyOutLevels = 3;

// Reduce extents from which the cross-thread rule offers its sketch.
inline constexpr int64_t kMinCrossThreadReduction = 32;

const std::vector<SketchRule>& GpuSketchRules();

// The level of a loop that multi-level tiling made ("i0.3" is level 3), or -1 for a loop it did
// not split.
int TileLevel(const schedule::IterNode& node);

// The loops of a tiled stage's X.local that hold one virtual thread's register tile: its space
// loops of level kGpuCopyOutLevels and deeper (S3, S4).
std::vector<int> RegisterTileLoops(const schedule::State& s, int local);

// Lanes a thread of a cooperative fetch moves at once, drawn from these (4-byte elements: up to
// 16 bytes, the widest access). Code generation moves several lanes at once for 4-byte elements
// only (nvptx_codegen.cc, EmitVectorCopy): other element types fetch one lane.
inline constexpr int64_t kFetchLanes[] = {1, 2, 4};
inline constexpr int kFetchLaneBytes = 4;
// Whether `lanes` lanes of a fetch into `tile` can move at once: they divide its rows (else they
// straddle two rows and move one by one), its elements are of kFetchLaneBytes and each lane is
// one plain load (not a padding's select).
bool FetchLanesFit(const SharedTile& tile, int64_t lanes);
// Step i of a GPU sketch's program is a fetch's lane split: a one-length split of a fused loop
// that a follow_fused_split by the thread count follows. Its length is annotation's to draw
// from kFetchLanes, never the tile-size mutation's.
bool IsFetchLanesSplit(const std::vector<schedule::Step>& steps, size_t i);

// Bank-conflict padding of a shared tile (schedule step "SA"): its rows (its innermost
// dimension longer than 1: a 1x1 conv's weights [K, C, 1, 1] have rows of C) get an odd
// stride, so that the 32 lanes of a warp reading one column of 32 rows hit 32 different banks
// (tir/shared_bank_conflicts.h). Annotation draws it for each shared stage with probability
// 1/2, evolution toggles it (mutate_storage_align.cc): whether it pays depends on how the
// threads read the tile, which the tile sizes decide.
inline constexpr int kRowPadFactor = 2, kRowPadOffset = 1;
// A shared stage of at least two dimensions computed at a reader's loop (a tile) with rows: a
// dimension longer than 1 before its innermost one longer than 1 (shared_tiles.h estimates them
// from the split lengths; a tile of unknown shape may have them).
bool HasRows(const schedule::State& s, int stage);
// A tile with rows whose rows padding would change: not those of an odd length already, which
// padding leaves as they are (another record of the same kernel).
bool HasPaddableRows(const schedule::State& s, int stage);
// Pads the rows of `stage`'s tile to a length that is `offset` modulo `factor`.
absl::Status PadRows(schedule::State* s, int stage, int factor = kRowPadFactor, int offset = kRowPadOffset);

// A stage the cross-thread rule shaped: at the root, its loops [space fused,] reduce outer,
// reduce inner (named "<fused>.1"), the last one for threadIdx.x.
bool IsCrossThreadReduction(const schedule::State& s, int stage);

}  // namespace tunefarm::tuner
