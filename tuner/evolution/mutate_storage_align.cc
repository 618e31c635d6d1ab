// Storage align: one shared tile toggles bank-conflict padding of its rows (gpu_sketch_rules.h,
// PadRows). Not one of Ansor's rules (its GPU sketches never pad): random annotation draws the
// padding per program with probability 1/2, and without this rule a program kept that draw for
// life.
#include <utility>

#include "tuner/evolution/mutation_rules.h"
#include "tuner/evolution/step_edit.h"
#include "tuner/search_space/gpu_annotation.h"
#include "tuner/search_space/gpu_sketch_rules.h"

namespace tunefarm::tuner {

using schedule::State;
using schedule::Step;

absl::StatusOr<State> MutateStorageAlign(const State& parent, const SearchTarget& target, std::mt19937_64& rng) {
  std::vector<int> stages;
  for (int s = 0; s < static_cast<int>(parent.stages().size()); ++s)
    if (HasPaddableRows(parent, s) || parent.stage(s).storage_align_factor != 0) stages.push_back(s);
  if (stages.empty()) return absl::FailedPreconditionError("no shared tile whose rows could be padded");
  const int stage = stages[rng() % stages.size()];
  std::vector<Step> steps = parent.steps();
  // Stage numbers in an SA step are the final ones: steps that add stages come before it.
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto* align = std::get_if<schedule::StorageAlignStep>(&steps[i]);
    if (align && align->stage == stage) {
      if (auto s = EraseStep(&steps, i); !s.ok()) return s;
      return ReplaySteps(parent.original_dag(), steps);
    }
  }
  absl::StatusOr<std::optional<State>> padded = PaddedIfItFits(parent, stage, target);
  if (!padded.ok()) return padded.status();
  if (!*padded) return absl::OutOfRangeError("the padded tiles would overflow the block's shared memory");
  return **std::move(padded);
}

}  // namespace tunefarm::tuner
