// Candidate schedules for one task: the default-rule schedule (the reference kernel) first,
// then programs drawn from the search space: three in four are random annotations of the
// task's Ansor sketches (tuner/search_space/), one in four a random variant of the default
// schedule (schedule_mutation.h). Candidates are distinct by schedule hash, every one replays
// and lowers, and the sequence depends only on the DAG, the rule context, the search target
// and the seed: a restarted tuner regenerates the same sequence and skips the hashes it has
// already measured.
#pragma once

#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/default_rules.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/stmt.h"
#include "tuner/schedule_mutation.h"
#include "tuner/search_space/search_target.h"

namespace tunefarm::tuner {

struct Candidate {
  schedule::State state;
  std::string json;  // canonical step list
  std::string hash;  // its SHA-256: the schedule's identity in the database
  // The lowered program, kept so that features and the build do not lower it again.
  std::shared_ptr<const tir::PrimFunc> lowered;
};

// A valid program as a candidate: lowered (and checked, LowerProgram) unless `lowered` is given.
absl::StatusOr<Candidate> MakeCandidate(schedule::State state, const SearchTarget& target,
                                        std::shared_ptr<const tir::PrimFunc> lowered = nullptr);

class CandidateGenerator {
 public:
  // Fails when the default rules cannot schedule the DAG or their schedule does not lower.
  static absl::StatusOr<CandidateGenerator> Create(std::shared_ptr<const te::ComputeDag> dag,
                                                   const schedule::RuleContext& rules, const SearchTarget& target,
                                                   uint64_t seed, MutationOptions mutation = {});

  // The default-rule schedule: the first candidate, and the reference for correctness.
  const Candidate& default_candidate() const { return default_; }

  // Up to `count` candidates whose hashes are not in `seen` (their hashes are added). The
  // default comes first while unseen. Fewer, possibly none, once `max_attempts` draws in a row
  // found nothing new: the variants of this sketch are (nearly) exhausted.
  std::vector<Candidate> Next(int count, std::set<std::string>* seen);

  // Draws that failed to replay or lower, and draws that repeated a seen hash, so far.
  int64_t invalid_draws() const { return invalid_draws_; }
  int64_t duplicate_draws() const { return duplicate_draws_; }
  int num_sketches() const { return static_cast<int>(sketches_.size()); }

  int max_attempts = 200;

 private:
  CandidateGenerator(std::shared_ptr<const te::ComputeDag> dag, Candidate default_candidate,
                     std::vector<schedule::State> sketches, const SearchTarget& target, uint64_t seed,
                     MutationOptions mutation);

  // One draw: a sketch annotated randomly, or a variant of the default schedule.
  absl::StatusOr<schedule::State> Draw();

  std::shared_ptr<const te::ComputeDag> dag_;
  Candidate default_;
  std::vector<schedule::State> sketches_;
  SearchTarget target_;
  std::mt19937_64 rng_;
  MutationOptions mutation_;
  int64_t invalid_draws_ = 0;
  int64_t duplicate_draws_ = 0;
};

// A seed for one task of one job: the same job and workload always give the same sequence.
uint64_t TaskSeed(uint64_t job_seed, const std::string& workload_key);

}  // namespace tunefarm::tuner
