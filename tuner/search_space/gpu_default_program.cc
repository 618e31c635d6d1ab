#include "tuner/search_space/gpu_default_program.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "compiler/tir/shared_bank_conflicts.h"
#include "tuner/search_space/gpu_annotation.h"
#include "tuner/search_space/gpu_sketch_rules.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/random_annotation.h"
#include "tuner/search_space/sketch_rules.h"
#include "tuner/search_space/tile_operands.h"
#include "tuner/search_space/tile_sizes.h"

namespace tunefarm::tuner {
namespace {

using schedule::State;

constexpr int64_t kRegisterTileCaps[] = {64, 32, 16, 8, 4, 2, 1};
constexpr int64_t kBlockThreadCaps[] = {256, 128, 64, 32};
constexpr int64_t kReduceStepCaps[] = {64, 32, 16, 8, 4, 2, 1};
constexpr int64_t kWarp = 32;
constexpr int64_t kInnermostThreads = 16;
constexpr int64_t kPointwiseBlock = 256;
constexpr int kAutoUnrollSteps = 64;

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

int64_t SmallestPrimeFactor(int64_t n) {
  for (int64_t p = 2; p * p <= n; ++p)
    if (n % p == 0) return p;
  return n;
}

// Grows each factor[a] (dividing room[a]) while the product stays within `cap`, each time by
// the smallest prime factor of what is left of room[a], on the axis where the tile
// base[a] x factor[a] then reads the fewest operand elements per point (tile_operands.h); on a
// tie, the axis of the smaller tile, then the inner one (without operands: a balanced tile).
void GrowForReuse(const std::vector<int64_t>& room, const std::vector<int64_t>& base, const TileOperands& operands,
                  int64_t cap, std::vector<int64_t>* factor) {
  int64_t product = Product(*factor);
  for (;;) {
    int best = -1;
    int64_t best_prime = 1;
    double best_loads = 0;
    for (int a = static_cast<int>(room.size()) - 1; a >= 0; --a) {
      const int64_t left = room[a] / (*factor)[a];
      if (left == 1) continue;
      const int64_t p = SmallestPrimeFactor(left);
      if (product * p > cap) continue;
      std::vector<int64_t> tile(room.size());
      for (size_t i = 0; i < room.size(); ++i) tile[i] = base[i] * (*factor)[i];
      tile[a] *= p;
      const double loads = operands.LoadsPerPoint(tile);
      const bool fewer = best < 0 || loads < best_loads * (1 - 1e-9);
      const bool tie = best >= 0 && !fewer && loads <= best_loads * (1 + 1e-9);
      if (fewer || (tie && base[a] * (*factor)[a] < base[best] * (*factor)[best]))
        best = a, best_prime = p, best_loads = loads;
    }
    if (best < 0) return;
    (*factor)[best] *= best_prime;
    product *= best_prime;
  }
}

int64_t ThreadsWanted(const SearchTarget& target) {
  return static_cast<int64_t>(target.num_sms > 0 ? target.num_sms : kAssumedSms) * kDefaultThreadsPerSm;
}

struct SpaceTile {
  std::vector<int64_t> registers;  // per axis: the points each thread computes along it
  std::vector<int64_t> threads;    // per axis: the block's threads along it
};

// The largest divisor of n of at most cap (at least 1).
int64_t LargestDivisorAtMost(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, cap); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

// A space tile with at most `register_cap` accumulators and `thread_cap` threads (the header's
// rule): the register tile grows where it saves the most loads; the innermost axis takes its
// threads first, the largest divisor of what is left of it up to `innermost_cap`
// (kInnermostThreads: a warp's stores and fetches then cover runs of neighbouring elements);
// then the other axes, where the block's tile saves the most loads; then all of them, should
// the others run out before the cap. For the block the measure counts the distinct shared
// words its threads read a reduce point (threads that differ only along an axis an operand does
// not use read the same word: within a warp, a broadcast), not what it fetches from global
// memory a step (with a conv's halo rows): that happens once a step, the shared reads once a
// reduce point.
SpaceTile GrowSpaceTile(const std::vector<int64_t>& extents, const TileOperands& operands, int64_t register_cap,
                        int64_t thread_cap, int64_t innermost_cap) {
  const std::vector<int64_t> ones(extents.size(), 1);
  SpaceTile t{ones, ones};
  GrowForReuse(extents, ones, operands, register_cap, &t.registers);
  std::vector<int64_t> room(extents.size());
  for (size_t a = 0; a < extents.size(); ++a) room[a] = extents[a] / t.registers[a];
  t.threads.back() = LargestDivisorAtMost(room.back(), std::min(innermost_cap, thread_cap));
  std::vector<int64_t> others = room;
  others.back() = t.threads.back();  // nothing left of it for the others' turn
  GrowForReuse(others, t.registers, operands, thread_cap, &t.threads);
  GrowForReuse(room, t.registers, operands, thread_cap, &t.threads);
  return t;
}

// A gpu-tile stage's space tile over axes of `extents` (the header's rule); an error where no
// block of a warp or more divides them (long prime extents: one thread per point, in guarded
// blocks, does better).
absl::StatusOr<SpaceTile> ChooseSpaceTile(const std::vector<int64_t>& extents, const TileOperands& operands,
                                          const SearchTarget& target) {
  const int64_t points = Product(extents);
  const int64_t wanted = std::min(points, ThreadsWanted(target));
  const int64_t sms = target.num_sms > 0 ? target.num_sms : kAssumedSms;
  const int64_t block_cap = std::max(1, target.max_threads_per_block);
  std::optional<SpaceTile> most_blocks;  // of the valid tiles of one accumulator a thread
  int64_t most = 0;
  for (int64_t register_cap : kRegisterTileCaps) {
    for (int64_t thread_cap : kBlockThreadCaps) {
      const int64_t cap = std::min(thread_cap, block_cap);
      SpaceTile t = GrowSpaceTile(extents, operands, register_cap, cap, kInnermostThreads);
      const int64_t warp = std::min({kWarp, block_cap, points / Product(t.registers)});
      // Small factors run out below a warp where a large one is left (1,002 = 6 x 167): the
      // innermost axis then takes the largest divisor within the cap first.
      if (Product(t.threads) < warp) t = GrowSpaceTile(extents, operands, register_cap, cap, cap);
      const int64_t accumulators = Product(t.registers), threads = Product(t.threads);
      if (threads < warp) continue;  // a warp where the tile leaves one
      if (accumulators > target.AccumulatorsPerThread(threads)) continue;
      const int64_t blocks = points / (accumulators * threads);
      if (points / accumulators >= wanted && blocks >= sms) return t;
      if (accumulators == 1 && blocks > most) most_blocks = t, most = blocks;
    }
  }
  // Too few points to fill every SM: one point a thread, in the most blocks.
  if (most_blocks) return *most_blocks;
  return absl::FailedPreconditionError(
      StrCat("no block of ", std::min(kWarp, block_cap), " threads or more divides the extents"));
}

// A cross-thread reduction's threads: the largest power of two from a warp to 256 within the
// extent and the device's limit, else the extent.
int64_t ReductionThreads(int64_t extent, const SearchTarget& target) {
  const int64_t cap = std::min<int64_t>({extent, kPointwiseBlock, target.max_threads_per_block});
  int64_t threads = kWarp;
  if (threads > cap) return std::min<int64_t>(extent, target.max_threads_per_block);
  while (threads * 2 <= cap) threads *= 2;
  return threads;
}

// A tiled stage's split steps, keyed as TunableSplit::stage, and the operands of its tile.
using OperandsOfTiles = std::map<std::pair<int, int>, TileOperands>;

// The operands of the tile `split_steps` make, known once per sketch. They only guide the tile's
// shape: where they cannot be read, no operands (every axis ties, and the tile stays balanced).
const TileOperands& OperandsOf(const State& sketch, std::pair<int, int> stage, const std::vector<size_t>& split_steps,
                               OperandsOfTiles* known) {
  auto it = known->find(stage);
  if (it == known->end()) {
    absl::StatusOr<TileOperands> operands = TileOperandsOf(sketch, split_steps);
    it = known->emplace(stage, operands.ok() ? *std::move(operands) : TileOperands{}).first;
  }
  return it->second;
}

// Every tunable split's lengths (the header's rule), each step along a tiled stage's reduction
// covering at most `step_cap` reduce points.
absl::StatusOr<std::map<size_t, std::vector<int64_t>>> DefaultLengths(const std::vector<TunableSplit>& splits,
                                                                      const State& sketch, const SearchTarget& target,
                                                                      int64_t step_cap, OperandsOfTiles* operands) {
  const std::vector<schedule::Step>& steps = sketch.steps();
  std::map<size_t, std::vector<int64_t>> lengths;
  std::map<std::pair<int, int>, std::vector<const TunableSplit*>> space, reduce;  // a tiled stage's splits
  for (const TunableSplit& s : splits) {
    if (IsFetchLanesSplit(steps, s.step))
      lengths[s.step] = {1};  // the replay's (below)
    else if (s.extent == schedule::kUnknownExtent)
      continue;
    else if (s.kind == schedule::IterKind::kSpace && s.parts == kGpuTiledSplitLengths)
      space[s.stage].push_back(&s);
    else if (s.kind == schedule::IterKind::kReduce && s.parts == 1)  // a cross-thread reduction's threads
      lengths[s.step] = {ReductionThreads(s.extent, target)};
    else if (s.kind == schedule::IterKind::kReduce)
      reduce[s.stage].push_back(&s);
    else
      lengths[s.step] = std::vector<int64_t>(s.parts, 1);
  }
  for (const auto& [stage, group] : space) {
    std::vector<int64_t> extents;
    std::vector<size_t> split_steps;
    for (const TunableSplit* s : group) extents.push_back(s->extent), split_steps.push_back(s->step);
    const absl::StatusOr<SpaceTile> tile =
        ChooseSpaceTile(extents, OperandsOf(sketch, stage, split_steps, operands), target);
    if (!tile.ok()) return tile.status();
    for (size_t a = 0; a < group.size(); ++a) {
      const bool innermost = a + 1 == group.size();
      const int64_t vthreads = innermost ? LargestDivisorAtMost(tile->registers[a], kMaxVirtualThreads) : 1;
      lengths[group[a]->step] = {vthreads, tile->threads[a], 1, tile->registers[a] / vthreads};
    }
  }
  for (const auto& [stage, group] : reduce) {
    int64_t left = step_cap;
    for (auto it = group.rbegin(); it != group.rend(); ++it) {
      std::vector<int64_t>& l = lengths[(*it)->step] = std::vector<int64_t>((*it)->parts, 1);
      l[0] = LargestDivisorAtMost((*it)->extent, left);
      left /= l[0];
    }
  }
  return lengths;
}

// Stages of `sketch` the cross-thread rule shaped where the default wants it (one thread per
// point would leave the GPU nearly idle), less those where it does not.
int CrossThreadScore(const State& sketch, const SearchTarget& target) {
  int score = 0;
  for (int stage = 0; stage < static_cast<int>(sketch.stages().size()); ++stage) {
    if (!IsCrossThreadReduction(sketch, stage)) continue;
    const schedule::Stage& st = sketch.stage(stage);
    const int64_t points = st.iters.size() == 3 ? st.node_of(0).extent : 1;
    score += points < ThreadsWanted(target) ? 1 : -1;
  }
  return score;
}

// The most ways a warp replays a load of the shared buffer of `stage` in `f`, `program` lowered
// (tir/shared_bank_conflicts.h); nullopt where that buffer is not known by its name alone (two
// tiled stages may each have a copy of one tensor) or a load's index cannot be evaluated.
std::optional<int> LoadWays(const State& program, int stage, const tir::PrimFunc& f) {
  const std::string& name = program.dag().tensor(program.stage(stage).tensor_id).name;
  int buffer = -1;
  for (int b = 0; b < static_cast<int>(f.buffers.size()); ++b)
    if (f.buffers[b].scope == tir::BufferScope::kShared && f.buffers[b].name == name) {
      if (buffer >= 0) return std::nullopt;
      buffer = b;
    }
  std::optional<int> ways;
  for (const tir::SharedAccess& a : tir::SharedBankConflicts(f, f.body)) {
    if (a.store || a.buffer != buffer) continue;
    if (a.ways == 0) return std::nullopt;
    ways = std::max(ways.value_or(0), a.ways);
  }
  return ways;
}

// Row lengths a conflicting tile's rows are padded to, tried in order: odd (a warp reading down
// a column), then 7, 14 and 16 modulo 32, which separate the lanes of a warp spread over a few
// rows of a depthwise or strided conv's input tile (in MobileNetV2's default programs, the
// analysis finds one of them removes or halves each such conflict, and odd lengths none).
struct RowPad {
  int factor, offset;
};
constexpr RowPad kRowPads[] = {{kRowPadFactor, kRowPadOffset}, {32, 7}, {32, 14}, {32, 16}};

// Pads the rows of each shared tile whose loads a warp replays for bank conflicts, to the first
// of kRowPads that makes them fewest (the loads run once per register tile and reduce point,
// the stores once per step: a padded row may cost the 128-bit stores of a fetch, which then
// store one element a lane), where the kernel's tiles still fit and the program still lowers.
// A GEMM's tile of A read down a column by a warp of two thread rows is the classic case
// (docs/gpu.md "Bank conflicts and padded rows"). `lowered` is `program` lowered, and stays so.
void PadConflictingTiles(State* program, tir::PrimFunc* lowered, const SearchTarget& target) {
  for (int stage = 0; stage < static_cast<int>(program->stages().size()); ++stage) {
    if (!HasRows(*program, stage)) continue;
    std::optional<int> fewest = LoadWays(*program, stage, *lowered);
    if (!fewest || *fewest <= 1) continue;
    const State unpadded = *program;  // each pad is tried on it
    for (const RowPad& pad : kRowPads) {
      if (*fewest <= 1) break;
      absl::StatusOr<std::optional<State>> padded = PaddedIfItFits(unpadded, stage, target, pad.factor, pad.offset);
      if (!padded.ok() || !*padded) continue;
      absl::StatusOr<tir::PrimFunc> f = LowerProgram(**padded, target);
      if (!f.ok()) continue;
      const std::optional<int> ways = LoadWays(**padded, stage, *f);
      if (!ways || *ways >= *fewest) continue;
      fewest = ways;
      *program = **std::move(padded);
      *lowered = *std::move(f);
    }
  }
}

}  // namespace

absl::StatusOr<State> GpuDefaultProgram(std::shared_ptr<const te::ComputeDag> dag, const SearchTarget& target) {
  if (!target.gpu) return absl::InvalidArgumentError("the GPU default program needs a cuda target");
  const std::vector<State> sketches = GenerateSketches(dag, target);
  const State* sketch = &sketches.front();
  for (const State& s : sketches)
    if (CrossThreadScore(s, target) > CrossThreadScore(*sketch, target)) sketch = &s;
  auto lanes = [&](const State& so_far, size_t step,
                   const schedule::SplitStep& split) -> std::optional<std::vector<int64_t>> {
    if (!IsFetchLanesSplit(sketch->steps(), step)) return std::nullopt;
    return std::vector<int64_t>{LanesThatFit(EstimateSharedTile(so_far, split.stage)).back()};
  };
  const int64_t block = std::min<int64_t>(kPointwiseBlock, std::max(1, target.max_threads_per_block));
  const GpuBindChoices choices{[&] { return block; }, [] { return false; }};
  // Reduce steps from the longest down, until the shared tiles fit as estimated and then as
  // lowering and the launch plan find them (CheckProgram: a grouped conv's tiles are known only
  // there, and may overflow whatever the step).
  absl::Status refused;
  OperandsOfTiles operands;
  for (int64_t step_cap : kReduceStepCaps) {
    absl::Status chosen;
    auto lengths = [&](const std::vector<TunableSplit>& splits) {
      absl::StatusOr<std::map<size_t, std::vector<int64_t>>> l =
          DefaultLengths(splits, *sketch, target, step_cap, &operands);
      chosen = l.status();
      return l.ok() ? *std::move(l) : std::map<size_t, std::vector<int64_t>>{};
    };
    std::mt19937_64 rng(0);  // for splits of lengths known only during the replay: none in GPU sketches so far
    absl::StatusOr<State> state = FillTileSizes(*sketch, lengths, rng, lanes);
    if (!chosen.ok()) return PhaseError("tile sizes", chosen);
    if (!state.ok()) return PhaseError("tile sizes", state.status());
    if (!SharedTilesFit(*state, target)) {
      refused = absl::ResourceExhaustedError("its shared tiles overflow the block's shared memory");
      continue;
    }
    if (auto s = BindGpuStages(&*state, target, choices); !s.ok()) return PhaseError("bindings", s);
    if (auto s = SetAutoUnroll(&*state, [] { return kAutoUnrollSteps; }); !s.ok()) return PhaseError("auto-unroll", s);
    absl::StatusOr<tir::PrimFunc> lowered = LowerProgram(*state, target);  // as CheckProgram
    if (!lowered.ok()) {
      refused = PhaseError("lowering", lowered.status());
      continue;
    }
    PadConflictingTiles(&*state, &*lowered, target);
    return state;
  }
  return absl::Status(refused.code(), StrCat("no default program of ", dag->WorkloadKey(),
                                             " fits, even one reduce point a step: ", std::string(refused.message())));
}

}  // namespace tunefarm::tuner
