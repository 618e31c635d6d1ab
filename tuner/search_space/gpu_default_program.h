// The default program of a task on a GPU (a cuda target): what a model compiled without tuning
// records runs, and the tuner's first candidate. It is a GPU sketch (gpu_sketch_rules.h) whose
// choices are made by fixed rules instead of drawn (gpu_annotation.h draws them):
//   - sketch      a reduction gets the cross-thread sketch when one thread per output point
//                 would leave the GPU nearly idle (fewer than kDefaultThreadsPerSm threads per
//                 SM); otherwise it stays one thread per point;
//   - tile sizes  a gpu-tile stage's register tile grows over its space axes, each time by the
//                 smallest prime factor of what is left of an axis, on the axis where it then
//                 loads the fewest operand elements per point (tile_operands.h: a GEMM's rows
//                 and columns in turn, a conv's output channels and columns before its rows,
//                 a batch axis last); then its threads: the innermost axis first, up to 16 (so
//                 that a warp's stores and fetches cover runs of neighbouring elements; where
//                 small factors run out below a warp, as for 1,002 = 6 x 167, the largest
//                 divisor up to the cap), then the others where the block's tile loads the
//                 fewest elements per point, then all of them should the others run out. The
//                 largest register tile (64, 32, ... 1 accumulators) and then the most threads
//                 (256, 128, 64, 32) that keep the per-thread budgets of annotation, give at
//                 least a warp a block (where the extents allow), kDefaultThreadsPerSm threads
//                 per SM and a block per SM; where no tile does (too few points), one point a
//                 thread in the most blocks; where no block of a warp divides the extents (such
//                 as primes over 256), an error. The register tile of the innermost axis is made of
//                 virtual threads (up to kMaxVirtualThreads), so the threads of a warp read
//                 neighbouring shared elements and store neighbouring outputs; each step along
//                 the reduction covers up to 64 reduce points (fewer while the shared tiles
//                 overflow, as estimated or as lowering finds them); each fetch moves the most
//                 lanes its tile allows;
//   - bindings    as annotation's, with blocks of 256 threads for the stages bound one thread
//                 per point;
//   - padding     a shared tile's rows are padded (odd, or 7, 14 or 16 modulo 32) where that
//                 makes a warp's loads of it fewer ways of bank conflicts (computed for the
//                 lowered program by tir/shared_bank_conflicts.h) and the tiles still fit: a big
//                 GEMM's tile of A, 1x1 convs' weight tiles, depthwise convs' input tiles;
//   - auto-unroll 64 steps.
// The program lowers and its launches fit the device (CheckProgram), or this is an error: no
// block of a warp divides the extents, the shared tiles overflow even at one reduce point a
// step, or a phase (tile sizes, bindings, auto-unroll, lowering) fails. The
// one-thread-per-point schedule (compiler/schedule/gpu_thread_per_point.h) is what callers fall
// back to, and the tuner's reference for GPU candidates: it shares no tiling, shared memory or
// virtual threads with what it checks.
#pragma once

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"
#include "compiler/te/compute_dag.h"
#include "tuner/search_space/search_target.h"

namespace tunefarm::tuner {

// Threads per SM the default program aims for (8 warps: enough to hide some latency).
inline constexpr int64_t kDefaultThreadsPerSm = 256;
// The SM count assumed when the target does not give one (-num-sms): an A100's.
inline constexpr int kAssumedSms = 108;

absl::StatusOr<schedule::State> GpuDefaultProgram(std::shared_ptr<const te::ComputeDag> dag,
                                                  const SearchTarget& target);

}  // namespace tunefarm::tuner
