// Random search: the candidate generator's draws in their order (the baseline the cost-model
// search is compared against, and the policy "random" of a job).
#pragma once

#include "tuner/candidate_generator.h"
#include "tuner/search_policy.h"

namespace tunefarm::tuner {

class RandomSearchPolicy final : public SearchPolicy {
 public:
  explicit RandomSearchPolicy(CandidateGenerator generator) : generator_(std::move(generator)) {}

  std::vector<Candidate> NextBatch(int n, const std::set<std::string>& measured) override {
    std::set<std::string> seen = measured;
    return generator_.Next(n, &seen);
  }
  void Observe(const std::vector<MeasuredCandidate>&) override {}
  const Candidate& default_candidate() const override { return generator_.default_candidate(); }

 private:
  CandidateGenerator generator_;
};

}  // namespace tunefarm::tuner
