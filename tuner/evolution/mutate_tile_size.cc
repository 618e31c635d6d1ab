// Tile size (Ansor's MutateTileSize): a factor moves between two levels of one split.
#include <utility>

#include "common/strings.h"
#include "tuner/evolution/mutation_rules.h"
#include "tuner/evolution/step_edit.h"
#include "tuner/search_space/gpu_annotation.h"
#include "tuner/search_space/gpu_sketch_rules.h"

namespace tunefarm::tuner {
namespace {

using schedule::SplitStep;
using schedule::Step;

// The split's levels, outer loop first: {extent / product, lengths...}; empty when some length
// is unfilled or the lengths leave a tail (no factor can move soundly then).
std::vector<int64_t> Levels(const SplitStep& split) {
  std::vector<int64_t> levels = {0};
  int64_t product = 1;
  for (const auto& l : split.lengths) {
    if (!l || *l <= 0) return {};
    levels.push_back(*l);
    product *= *l;
  }
  if (split.extent <= 0 || split.extent % product != 0) return {};
  levels[0] = split.extent / product;
  return levels;
}

std::vector<int64_t> DivisorsAboveOne(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 2; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

// The product of the lengths `counted` picks (by index and count) of every space split of the
// stage that step `step` splits (its group, by stage and stage count).
template <typename Counted>
int64_t StageLengths(const std::vector<Step>& steps, const ReplayTrace& trace, size_t step, Counted counted) {
  const auto& split = std::get<SplitStep>(steps[step]);
  int64_t product = 1;
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto* s = std::get_if<SplitStep>(&steps[i]);
    if (!s || s->lengths.size() < 2 || trace.split_kind[i] != schedule::IterKind::kSpace) continue;
    if (s->stage != split.stage || trace.stage_count[i] != trace.stage_count[step]) continue;
    for (size_t l = 0; l < s->lengths.size(); ++l)
      if (counted(l, s->lengths.size())) product *= s->lengths[l].value_or(1);
  }
  return product;
}

// One stage's register tile, what random annotation keeps within RegisterTileElements(): on a
// CPU the innermost space lengths multiplied; on a GPU (gpu_annotation.h) every level but the
// threads' (S1, S3, S4: a thread accumulates the S3 x S4 tile of each of its virtual threads).
int64_t RegisterTile(const std::vector<Step>& steps, const ReplayTrace& trace, size_t step, bool gpu) {
  return StageLengths(steps, trace, step, [&](size_t l, size_t n) { return gpu ? l != 1 : l + 1 == n; });
}

// A GPU tile's virtual threads per thread: its S1 lengths multiplied.
int64_t VirtualThreads(const std::vector<Step>& steps, const ReplayTrace& trace, size_t step) {
  return StageLengths(steps, trace, step, [](size_t l, size_t n) { return n == kGpuTiledSplitLengths && l == 0; });
}

// A GPU mutant's fetches refitted to its new tiles, unless those overflow shared memory.
absl::StatusOr<schedule::State> FitGpuMutant(const schedule::State& mutant, const SearchTarget& target) {
  absl::StatusOr<schedule::State> fitted = FitFetchesToTiles(mutant);
  if (fitted.ok() && !SharedTilesFit(*fitted, target))
    return absl::OutOfRangeError("the shared tiles would overflow the block's shared memory");
  return fitted;
}

}  // namespace

absl::StatusOr<schedule::State> MutateTileSize(const schedule::State& parent, const SearchTarget& target,
                                               std::mt19937_64& rng) {
  std::vector<Step> steps = parent.steps();
  std::vector<size_t> candidates;
  for (size_t i = 0; i < steps.size(); ++i)
    if (const auto* s = std::get_if<SplitStep>(&steps[i])) {
      std::vector<int64_t> levels = Levels(*s);
      if (levels.size() >= 2 && s->extent > 1 && !IsFetchLanesSplit(steps, i)) candidates.push_back(i);
    }
  if (candidates.empty()) return absl::FailedPreconditionError("no split with filled lengths and extent > 1");
  const size_t pick = candidates[rng() % candidates.size()];
  auto& split = std::get<SplitStep>(steps[pick]);
  std::vector<int64_t> levels = Levels(split);
  std::vector<int> sources;
  for (int l = 0; l < static_cast<int>(levels.size()); ++l)
    if (levels[l] > 1) sources.push_back(l);
  const int src = sources[rng() % sources.size()];
  int dst = static_cast<int>(rng() % (levels.size() - 1));
  if (dst >= src) ++dst;
  const int innermost = static_cast<int>(levels.size()) - 1;
  std::vector<int64_t> divisors;  // those that keep the innermost length within its cap
  for (int64_t d : DivisorsAboveOne(levels[src]))
    if (dst != innermost || levels[dst] * d <= kMaxInnermostSplitLength) divisors.push_back(d);
  if (divisors.empty())
    return absl::OutOfRangeError(StrCat("the innermost length ", levels[innermost], " cannot grow within ",
                                        kMaxInnermostSplitLength));
  const int64_t d = divisors[rng() % divisors.size()];
  levels[src] /= d;
  levels[dst] *= d;
  for (int l = 1; l <= innermost; ++l) split.lengths[l - 1] = levels[l];

  ReplayTrace trace;
  auto program = ReplaySteps(parent.original_dag(), steps, &trace);
  if (!program.ok()) return program.status();
  // On a GPU the shared tiles may change shape: their fetches' lanes and padding follow, and
  // they must still fit shared memory (else lowering would refuse the mutant, after all its cost).
  if (innermost < 2 || trace.split_kind[pick] != schedule::IterKind::kSpace)
    return target.gpu ? FitGpuMutant(*program, target) : program;
  if (!target.gpu) {
    if (dst == innermost && RegisterTile(steps, trace, pick, false) > target.RegisterTileElements())
      return absl::OutOfRangeError("the register tile would exceed the register file");
    return program;
  }
  // On a GPU any move can break a budget: more threads leave each fewer registers.
  const int64_t threads = StageLengths(steps, trace, pick, [](size_t l, size_t n) { return n == kGpuTiledSplitLengths && l == 1; });
  if (RegisterTile(steps, trace, pick, true) > target.AccumulatorsPerThread(threads))
    return absl::OutOfRangeError("the thread's accumulators would exceed its share of the register file");
  if (VirtualThreads(steps, trace, pick) > kMaxVirtualThreads)
    return absl::OutOfRangeError(StrCat("more than ", kMaxVirtualThreads, " virtual threads per thread"));
  return FitGpuMutant(*program, target);
}

}  // namespace tunefarm::tuner
