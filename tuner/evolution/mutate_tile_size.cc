// Tile size (Ansor's MutateTileSize): a factor moves between two levels of one split.
#include <utility>

#include "common/strings.h"
#include "tuner/evolution/mutation_rules.h"
#include "tuner/evolution/step_edit.h"

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

// One stage's register tile, what random annotation keeps within RegisterTileElements() (the
// group of step `step`, by stage and stage count): on a CPU the innermost space lengths of its
// space splits multiplied; on a GPU (gpu_annotation.h) every level inside the thread level
// (S2 x S3), since each thread accumulates all of them.
int64_t RegisterTile(const std::vector<Step>& steps, const ReplayTrace& trace, size_t step, bool gpu) {
  const auto& split = std::get<SplitStep>(steps[step]);
  int64_t product = 1;
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto* s = std::get_if<SplitStep>(&steps[i]);
    if (!s || s->lengths.size() < 2 || trace.split_kind[i] != schedule::IterKind::kSpace) continue;
    if (s->stage != split.stage || trace.stage_count[i] != trace.stage_count[step]) continue;
    for (size_t l = gpu ? 1 : s->lengths.size() - 1; l < s->lengths.size(); ++l) product *= s->lengths[l].value_or(1);
  }
  return product;
}

}  // namespace

absl::StatusOr<schedule::State> MutateTileSize(const schedule::State& parent, const SearchTarget& target,
                                               std::mt19937_64& rng) {
  std::vector<Step> steps = parent.steps();
  std::vector<size_t> candidates;
  for (size_t i = 0; i < steps.size(); ++i)
    if (const auto* s = std::get_if<SplitStep>(&steps[i])) {
      std::vector<int64_t> levels = Levels(*s);
      if (levels.size() >= 2 && s->extent > 1) candidates.push_back(i);
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
  const bool into_tile = target.gpu ? dst >= 2 : dst == innermost;  // levels[2..] are lengths[1..]
  if (into_tile && innermost >= 2 && trace.split_kind[pick] == schedule::IterKind::kSpace &&
      RegisterTile(steps, trace, pick, target.gpu) > target.RegisterTileElements())
    return absl::OutOfRangeError("the register tile would exceed the register file");
  return program;
}

}  // namespace tunefarm::tuner
