#include "tuner/search_space/gpu_annotation.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "compiler/schedule/gpu_thread_per_point.h"
#include "compiler/tir/gpu_launch.h"
#include "tuner/search_space/gpu_sketch_rules.h"
#include "tuner/search_space/random_annotation.h"
#include "tuner/search_space/shared_tiles.h"
#include "tuner/search_space/split_factorization.h"
#include "tuner/search_space/tile_sizes.h"

namespace tunefarm::tuner {
namespace {

using schedule::ComputeLocation;
using schedule::IterAnnotation;
using schedule::State;

constexpr int64_t kWarp = 32;
// Tile-size draws of one program while its shared tiles overflow (below).
constexpr int kSharedMemoryDraws = 32;
constexpr int64_t kBlockSizes[] = {32, 64, 128, 256, 512, 1024};

// A cross-thread reduction's thread count: a block size of at least a warp, within the device's
// limit and the reduce extent (the extent itself when it is shorter than every block size).
int64_t DrawReductionThreads(int64_t extent, const SearchTarget& target, std::mt19937_64& rng) {
  std::vector<int64_t> sizes;
  for (int64_t b : kBlockSizes)
    if (b <= target.max_threads_per_block && b <= extent) sizes.push_back(b);
  return sizes.empty() ? std::min<int64_t>(extent, target.max_threads_per_block) : sizes[rng() % sizes.size()];
}

// A divisor of q of at most `cap`, uniformly (1 when cap < 2).
int64_t DivisorAtMost(int64_t q, int64_t cap, std::mt19937_64& rng) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= std::min(q, cap); ++d)
    if (q % d == 0) divisors.push_back(d);
  return divisors.empty() ? 1 : divisors[rng() % divisors.size()];
}

// One tiled stage's lengths drawn within the budgets by construction, each level from what the
// levels before it left: for every axis the register tile (S4, S3) and the virtual threads (S1),
// then for every axis the threads (S2), as many as the accumulators leave registers for. Not
// uniform over the tuples; used only when uniform draws keep breaking a budget, as they do for
// long axes (a 4,096 extent split five ways). Returns the block's threads.
int64_t DrawWithinBudgets(const std::vector<const TunableSplit*>& group, const SearchTarget& target,
                          std::mt19937_64& rng, std::map<size_t, std::vector<int64_t>>* lengths) {
  int64_t registers = target.RegisterTileElements(), virtual_threads = kMaxVirtualThreads, accumulators = 1;
  std::vector<int64_t> rest;  // per split: what its threads may divide
  for (const TunableSplit* s : group) {
    int64_t q = s->extent;
    std::vector<int64_t>& l = (*lengths)[s->step] = std::vector<int64_t>(kGpuTiledSplitLengths);
    l[3] = DivisorAtMost(q, std::min(registers, kMaxInnermostSplitLength), rng);
    l[2] = DivisorAtMost(q /= l[3], registers / l[3], rng);
    l[0] = DivisorAtMost(q /= l[2], std::min(virtual_threads, registers / (l[2] * l[3])), rng);
    rest.push_back(q / l[0]);
    registers /= l[0] * l[2] * l[3];
    accumulators *= l[0] * l[2] * l[3];
    virtual_threads /= l[0];
  }
  int64_t threads = target.max_threads_per_block, block = 1;
  while (threads > 1 && target.AccumulatorsPerThread(threads) < accumulators) threads /= 2;
  for (size_t i = 0; i < group.size(); ++i) {
    int64_t& t = (*lengths)[group[i]->step][1];
    t = DivisorAtMost(rest[i], threads, rng);
    threads /= t;
    block *= t;
  }
  return block;
}

// Lanes for the fetch of the shared tile `split` splits, drawn during the replay, once the
// tile sizes it depends on are applied.
std::vector<int64_t> DrawFetchLanes(const State& so_far, const schedule::SplitStep& split, std::mt19937_64& rng) {
  const std::vector<int64_t> lanes = LanesThatFit(EstimateSharedTile(so_far, split.stage));
  return {lanes[rng() % lanes.size()]};
}

std::map<size_t, std::vector<int64_t>> DrawGpuLengths(const std::vector<TunableSplit>& splits,
                                                      const std::vector<schedule::Step>& steps,
                                                      const SearchTarget& target, std::mt19937_64& rng) {
  std::map<size_t, std::vector<int64_t>> lengths;
  std::map<std::pair<int, int>, std::vector<const TunableSplit*>> tiled;  // a stage's space splits
  for (const TunableSplit& s : splits) {
    if (IsFetchLanesSplit(steps, s.step))  // drawn during the replay (DrawFetchLanes)
      lengths[s.step] = {1};
    else if (s.extent == schedule::kUnknownExtent)
      continue;
    else if (s.kind == schedule::IterKind::kSpace && s.parts == kGpuTiledSplitLengths)
      tiled[s.stage].push_back(&s);
    else if (s.kind == schedule::IterKind::kReduce && s.parts == 1)  // a cross-thread reduction's threads
      lengths[s.step] = {DrawReductionThreads(s.extent, target, rng)};
    else
      lengths[s.step] = SampleFactorization(s.extent, s.parts, kMaxInnermostSplitLength, rng);
  }
  for (const auto& [stage, group] : tiled) {
    int64_t points = 1;
    for (const TunableSplit* s : group) points *= s->extent;
    const int64_t fewest_threads = std::min(kWarp, points);
    bool fits = false;
    for (int attempt = 0; attempt < kGpuTileDraws && !fits; ++attempt) {
      int64_t virtual_threads = 1, threads = 1, accumulators = 1;
      for (const TunableSplit* s : group) {
        const std::vector<int64_t>& l = lengths[s->step] =
            SampleFactorization(s->extent, s->parts, kMaxInnermostSplitLength, rng);
        virtual_threads *= l[0];
        threads *= l[1];
        accumulators *= l[0] * l[2] * l[3];  // every virtual thread's register tile
      }
      fits = threads <= target.max_threads_per_block && threads >= fewest_threads &&
             virtual_threads <= kMaxVirtualThreads && accumulators <= target.AccumulatorsPerThread(threads);
    }
    for (int attempt = 0; attempt < kGpuTileDraws && !fits; ++attempt)
      fits = DrawWithinBudgets(group, target, rng, &lengths) >= fewest_threads;
  }
  return lengths;
}

// A tiled stage's copy-out: at the root, with the accumulators computed at its third loop (the
// fused S2 loop), its first three loops over space.
bool IsTiledCopyOut(const State& s, int stage) {
  const schedule::Stage& st = s.stage(stage);
  if (st.location != ComputeLocation::kRoot || st.iters.size() < kGpuCopyOutLevels) return false;
  for (int i = 0; i < kGpuCopyOutLevels; ++i)
    if (st.node_of(i).kind != schedule::IterKind::kSpace) return false;
  return !s.AttachedAt(stage, st.iters[kGpuCopyOutLevels - 1].node).empty();
}

}  // namespace

std::vector<int64_t> LanesThatFit(const absl::StatusOr<SharedTile>& tile) {
  std::vector<int64_t> lanes;
  for (int64_t l : kFetchLanes)
    if (l == 1 || (tile.ok() && FetchLanesFit(*tile, l))) lanes.push_back(l);
  return lanes;
}

absl::StatusOr<std::optional<State>> PaddedIfItFits(const State& s, int stage, const SearchTarget& target,
                                                    int factor, int offset) {
  State padded = s;
  if (auto r = PadRows(&padded, stage, factor, offset); !r.ok()) return r;
  if (!TileFitsSharedMemory(padded, padded.stage(stage).attach_stage, target)) return std::nullopt;
  return padded;
}

absl::Status BindGpuStages(State* s, const SearchTarget& target, const GpuBindChoices& choices) {
  for (int stage = 0; stage < static_cast<int>(s->stages().size()); ++stage) {
    const schedule::Stage& st = s->stage(stage);
    if (st.is_placeholder || st.location == ComputeLocation::kInlined || st.scope == schedule::kLayoutScope) continue;
    if (st.scope == "shared") {
      // [outer, threads, lanes], as the GPU sketch splits a fetch (gpu_sketch_rules.h).
      const int loops = static_cast<int>(st.iters.size());
      if (loops == 0) continue;
      const bool lanes = loops == 3;
      if (auto r = s->Annotate(stage, loops - (lanes ? 2 : 1), IterAnnotation::kThreadX); !r.ok()) return r;
      if (lanes)
        if (auto r = s->Annotate(stage, loops - 1, IterAnnotation::kVectorize); !r.ok()) return r;
      if (HasPaddableRows(*s, stage) && choices.pad_rows()) {  // unless its kernel's padded tiles would not fit
        absl::StatusOr<std::optional<State>> padded = PaddedIfItFits(*s, stage, target);
        if (!padded.ok()) return padded.status();
        if (*padded) *s = **std::move(padded);
      }
      continue;
    }
    if (st.location != ComputeLocation::kRoot) continue;  // inside a tile: runs in its thread
    if (IsCrossThreadReduction(*s, stage)) {
      const int last = static_cast<int>(st.iters.size()) - 1;
      if (last == 2)
        if (auto r = s->Annotate(stage, 0, IterAnnotation::kBlockX); !r.ok()) return r;
      if (auto r = s->Annotate(stage, last, IterAnnotation::kThreadX); !r.ok()) return r;
      continue;
    }
    if (IsTiledCopyOut(*s, stage)) {
      if (auto r = s->Annotate(stage, 0, IterAnnotation::kBlockX); !r.ok()) return r;
      if (auto r = s->Annotate(stage, 1, IterAnnotation::kVThread); !r.ok()) return r;
      if (auto r = s->Annotate(stage, 2, IterAnnotation::kThreadX); !r.ok()) return r;
      // It and X.local index the thread's accumulators by constants, so that they can stay in
      // registers (auto-unroll alone leaves a 64-element tile a .local array below 64 steps).
      for (int i = kGpuCopyOutLevels; i < static_cast<int>(st.iters.size()); ++i)
        if (auto r = s->Annotate(stage, i, IterAnnotation::kUnroll); !r.ok()) return r;
      for (int local : s->AttachedAt(stage, s->stage(stage).iters[kGpuCopyOutLevels - 1].node)) {
        if (s->stage(local).scope != "local") continue;
        for (int i : RegisterTileLoops(*s, local))
          if (auto r = s->Annotate(local, i, IterAnnotation::kUnroll); !r.ok()) return r;
      }
      continue;
    }
    if (auto r = schedule::BindToBlocksAndThreads(s, stage, choices.block_size()); !r.ok()) return r;
  }
  return absl::OkStatus();
}

absl::StatusOr<State> AnnotateRandomlyForGpu(const State& sketch, const SearchTarget& target, std::mt19937_64& rng) {
  auto draw = [&](const std::vector<TunableSplit>& splits) { return DrawGpuLengths(splits, sketch.steps(), target, rng); };
  auto lanes = [&](const State& so_far, size_t step,
                   const schedule::SplitStep& split) -> std::optional<std::vector<int64_t>> {
    if (!IsFetchLanesSplit(sketch.steps(), step)) return std::nullopt;
    return DrawFetchLanes(so_far, split, rng);
  };
  // Tile sizes again while the shared tiles overflow the block's shared memory: the check
  // costs a replay, lowering a program to find out costs far more (most GEMM 4096^3 draws
  // overflow). After kSharedMemoryDraws the last draw goes on, for lowering to refuse.
  absl::StatusOr<State> state;
  for (int attempt = 0; attempt < kSharedMemoryDraws; ++attempt) {
    state = FillTileSizes(sketch, draw, rng, lanes);
    if (!state.ok() || SharedTilesFit(*state, target)) break;
  }
  if (!state.ok()) return PhaseError("tile sizes", state.status());
  std::vector<int64_t> sizes;
  for (int64_t b : kBlockSizes)
    if (b <= target.max_threads_per_block) sizes.push_back(b);
  if (sizes.empty()) sizes.push_back(std::max(1, target.max_threads_per_block));  // a device below a warp
  const GpuBindChoices choices{[&] { return sizes[rng() % sizes.size()]; }, [&] { return rng() % 2 == 0; }};
  if (auto s = BindGpuStages(&*state, target, choices); !s.ok()) return PhaseError("bindings", s);
  // Unrolled, a thread's register tile is indexed by constants, so it stays in registers.
  if (auto s = PickAutoUnroll(&*state, rng); !s.ok()) return PhaseError("auto-unroll", s);
  return state;
}

bool TileFitsSharedMemory(const State& s, int local, const SearchTarget& target) {
  absl::StatusOr<int64_t> bytes = SharedBytesOfTile(s, local);
  return !bytes.ok() || *bytes <= std::min(target.max_shared_bytes, tir::kMaxStaticSharedBytes);
}

bool SharedTilesFit(const State& s, const SearchTarget& target) {
  for (int local = 0; local < static_cast<int>(s.stages().size()); ++local)
    if (s.stage(local).scope == "local" && !TileFitsSharedMemory(s, local, target)) return false;
  return true;
}

absl::StatusOr<State> FitFetchesToTiles(const State& program) {
  std::vector<schedule::Step> steps = program.steps();
  State out(program.original_dag());
  bool changed = false;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (IsFetchLanesSplit(steps, i)) {
      auto& split = std::get<schedule::SplitStep>(steps[i]);
      absl::StatusOr<SharedTile> tile = EstimateSharedTile(out, split.stage);
      if (tile.ok() && split.lengths[0] && !FetchLanesFit(*tile, *split.lengths[0])) {
        split.lengths[0] = LanesThatFit(tile).back();  // the most
        changed = true;
      }
    }
    if (const auto* align = std::get_if<schedule::StorageAlignStep>(&steps[i])) {
      // No longer the tile's rows, or a no-op now: left out (annotation's steps come last, so no
      // follow split names a step after it and nothing needs renumbering).
      absl::StatusOr<SharedTile> tile = EstimateSharedTile(out, align->stage);
      const size_t padded = static_cast<size_t>(align->axis) + 1;
      if (tile.ok() && (align->axis != tile->RowDim() - 1 || padded >= tile->extents.size() ||
                        tile->extents[padded] % align->factor == align->offset)) {
        changed = true;
        continue;
      }
    }
    if (auto s = out.Apply(steps[i]); !s.ok()) return s;
  }
  if (!changed) return program;
  return out;
}

}  // namespace tunefarm::tuner
