// A task's search, as the round loop sees it: asked for a batch of programs to measure, then
// shown what they measured. Two policies exist:
//  - RandomSearchPolicy (random_search_policy.h): programs drawn from the sketches with random
//    annotation (and variants of the default schedule), in the order drawn;
//  - EvolutionSearchPolicy (evolution_search_policy.h): Ansor's search, a population from the
//    sketches and the best measured programs evolved under the job's cost model.
// Both put the default-rule schedule first, so every task has its baseline measured.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "db/tuning_record.h"
#include "tuner/candidate_generator.h"

namespace tunefarm::tuner {

struct MeasuredCandidate {
  const Candidate* candidate;
  const db::TuningRecord* record;
};

class SearchPolicy {
 public:
  virtual ~SearchPolicy() = default;
  // Up to `n` programs whose hashes are not in `measured` (every schedule with a record for
  // this workload, target and thread count). Fewer, or none, when the space is exhausted.
  virtual std::vector<Candidate> NextBatch(int n, const std::set<std::string>& measured) = 0;
  // The outcome of a batch (valid or not), in any order.
  virtual void Observe(const std::vector<MeasuredCandidate>& results) = 0;
  // The default-rule schedule.
  virtual const Candidate& default_candidate() const = 0;
};

}  // namespace tunefarm::tuner
