// Ansor's search policy for one task. Each batch:
//   1. the initial population: programs sampled from the task's sketches with random
//      annotation, plus (up to a fifth of the population) the best programs measured so far,
//      by this job or found in the database for the same workload, target and threads;
//   2. while the job's cost model is untrained: random picks from that population; once
//      trained: the evolutionary search (evolution/evolutionary_search.h) under the model's
//      scores, with its eps-greedy share of random picks;
//   3. only programs whose schedule hash has no record are returned.
// The default-rule schedule opens every batch until it has a record (every task's baseline).
// Observe hands every measured program to the cost model and retrains it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/evolution/evolutionary_search.h"
#include "tuner/features/feature_matrix.h"
#include "tuner/job_cost_model.h"
#include "tuner/search_policy.h"
#include "tuner/tuning_task.h"

namespace tunefarm::tuner {

struct EvolutionPolicyOptions {
  int population = 2048;
  int generations = 4;
  double eps_greedy = 0.05;
  double measured_share = 0.2;  // of the initial population, at most, from the best measured
  std::function<void(const std::string&)> log;
};

class EvolutionSearchPolicy final : public SearchPolicy {
 public:
  // `database_best`: the database's best programs of this task (cost, replayed program).
  static absl::StatusOr<std::unique_ptr<EvolutionSearchPolicy>> Create(const TuningTask& task,
                                                                       Candidate default_candidate,
                                                                       const SearchTarget& target, JobCostModel* model,
                                                                       std::vector<std::pair<double, schedule::State>> database_best,
                                                                       EvolutionPolicyOptions options, uint64_t seed);

  std::vector<Candidate> NextBatch(int n, const std::set<std::string>& measured) override;
  void Observe(const std::vector<MeasuredCandidate>& results) override;
  const Candidate& default_candidate() const override { return default_; }

  // What the last batch's search did (for logs and benches).
  const std::string& last_summary() const { return last_summary_; }
  // Of the last batch's proposals, how many kept the lowering their scoring made (the rest
  // were lowered again to become candidates).
  int last_reused_lowerings() const { return last_reused_lowerings_; }

 private:
  EvolutionSearchPolicy(const TuningTask& task, Candidate default_candidate, const SearchTarget& target,
                        JobCostModel* model, std::vector<schedule::State> sketches,
                        std::vector<std::pair<double, schedule::State>> database_best, EvolutionPolicyOptions options,
                        uint64_t seed);

  std::vector<schedule::State> InitialPopulation();
  // Cost-model scores; -inf for a program that does not lower or fit (its features are cached
  // by hash for the batch, mutants repeat).
  std::vector<float> Score(const std::vector<schedule::State>& programs);
  // Program features of a lowered program; null when they cannot be computed. Thread-safe.
  static std::shared_ptr<const FeatureMatrix> FeaturesOf(const tir::PrimFunc& func);

  std::string workload_key_;
  Candidate default_;
  SearchTarget target_;
  JobCostModel* model_;
  std::vector<schedule::State> sketches_;
  std::vector<std::pair<double, schedule::State>> best_measured_;  // (cost, program), fastest first
  EvolutionPolicyOptions options_;
  std::mt19937_64 rng_;
  // The batch's scored programs, by hash (null: invalid); every map below is emptied when the
  // batch is chosen, so a batch starts from nothing.
  std::unordered_map<std::string, std::shared_ptr<const FeatureMatrix>> features_;
  // The lowerings of the best-scored programs of the batch's search, by hash: the programs it
  // proposes come from these, and keep them instead of being lowered a second time. Only the
  // top kKeptLowerings by score are kept (a search scores thousands of programs).
  void KeepLowering(const std::string& hash, float score, std::shared_ptr<const tir::PrimFunc> func);
  static constexpr size_t kKeptLowerings = 256;
  std::multimap<float, std::string> kept_by_score_;
  std::unordered_map<std::string, std::shared_ptr<const tir::PrimFunc>> kept_lowerings_;
  // The initial population's lowerings (sampling made them to check each program), for the
  // programs proposed straight from it; freed when the batch is chosen.
  std::unordered_map<std::string, std::shared_ptr<const tir::PrimFunc>> population_lowerings_;
  int last_reused_lowerings_ = 0;
  std::string last_summary_;
};

}  // namespace tunefarm::tuner
