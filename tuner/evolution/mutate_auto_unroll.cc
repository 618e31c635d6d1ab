// Auto-unroll (Ansor's MutateAutoUnroll): one auto_unroll_max_step pragma takes another value.
#include <iterator>

#include "tuner/evolution/mutation_rules.h"
#include "tuner/evolution/step_edit.h"
#include "tuner/search_space/random_annotation.h"

namespace tunefarm::tuner {

absl::StatusOr<schedule::State> MutateAutoUnroll(const schedule::State& parent, const SearchTarget&,
                                                 std::mt19937_64& rng) {
  std::vector<schedule::Step> steps = parent.steps();
  std::vector<size_t> pragmas;
  for (size_t i = 0; i < steps.size(); ++i)
    if (std::holds_alternative<schedule::PragmaStep>(steps[i])) pragmas.push_back(i);
  if (pragmas.empty()) return absl::FailedPreconditionError("no auto-unroll pragma");
  auto& pragma = std::get<schedule::PragmaStep>(steps[pragmas[rng() % pragmas.size()]]);
  std::vector<int> others;
  for (int v : kAutoUnrollChoices)
    if (v != pragma.auto_unroll_max_step) others.push_back(v);
  pragma.auto_unroll_max_step = others[rng() % others.size()];
  return ReplaySteps(parent.original_dag(), steps);
}

}  // namespace tunefarm::tuner
