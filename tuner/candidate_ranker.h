// The seam where a cost model plugs in. A round generates `pool_factor() x batch` candidates,
// the ranker orders them, and the first `batch` are built and measured; every measurement is
// then shown to the ranker so that a learned model can update itself.
//
// Only GenerationOrder exists today: no cost model is trained or consulted (docs/tuner.md,
// "Not done yet"). An XGBoost model over per-store loop features would implement this
// interface with a pool factor well above 1.
#pragma once

#include <vector>

#include "db/tuning_record.h"
#include "tuner/candidate_generator.h"
#include "tuner/tuning_task.h"

namespace tunefarm::tuner {

class CandidateRanker {
 public:
  virtual ~CandidateRanker() = default;
  // How many candidates to generate per one measured.
  virtual int pool_factor() const = 0;
  // Reorders `candidates`, most promising first.
  virtual void Rank(const TuningTask& task, std::vector<Candidate>* candidates) = 0;
  // One measurement result of a candidate of `task` (valid or not).
  virtual void Observe(const TuningTask& task, const Candidate& candidate,
                       const db::TuningRecord& record) = 0;
};

// Measures candidates in the order they were generated (random search).
class GenerationOrder final : public CandidateRanker {
 public:
  int pool_factor() const override { return 1; }
  void Rank(const TuningTask&, std::vector<Candidate>*) override {}
  void Observe(const TuningTask&, const Candidate&, const db::TuningRecord&) override {}
};

}  // namespace tunefarm::tuner
