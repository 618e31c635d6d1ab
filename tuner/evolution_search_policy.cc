#include "tuner/evolution_search_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "common/strings.h"
#include "tuner/features/program_features.h"
#include "tuner/parallel_work.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/sketch_rules.h"
#include "tuner/tuning_profile.h"

namespace tunefarm::tuner {
namespace {

// Measured programs kept to seed later populations.
constexpr size_t kBestMeasuredKept = 256;

}  // namespace

absl::StatusOr<std::unique_ptr<EvolutionSearchPolicy>> EvolutionSearchPolicy::Create(
    const TuningTask& task, Candidate default_candidate, const SearchTarget& target, JobCostModel* model,
    std::vector<std::pair<double, schedule::State>> database_best, EvolutionPolicyOptions options, uint64_t seed) {
  std::vector<schedule::State> sketches = GenerateSketches(task.dag, target);
  if (sketches.empty()) {
    return absl::FailedPreconditionError(
        StrCat("task ", task.workload_key, ": no sketch rule applies, so there is nothing to search"));
  }
  return std::unique_ptr<EvolutionSearchPolicy>(
      new EvolutionSearchPolicy(task, std::move(default_candidate), target, model, std::move(sketches),
                                std::move(database_best), std::move(options), seed));
}

EvolutionSearchPolicy::EvolutionSearchPolicy(const TuningTask& task, Candidate default_candidate,
                                             const SearchTarget& target, JobCostModel* model,
                                             std::vector<schedule::State> sketches,
                                             std::vector<std::pair<double, schedule::State>> database_best,
                                             EvolutionPolicyOptions options,
                                             uint64_t seed)
    : workload_key_(task.workload_key),
      default_(std::move(default_candidate)),
      target_(target),
      model_(model),
      sketches_(std::move(sketches)),
      options_(std::move(options)),
      rng_(seed) {
  best_measured_ = std::move(database_best);
  std::stable_sort(best_measured_.begin(), best_measured_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

std::vector<schedule::State> EvolutionSearchPolicy::InitialPopulation() {
  const int from_measured = std::min<int>(static_cast<int>(best_measured_.size()),
                                          static_cast<int>(options_.population * options_.measured_share));
  std::vector<tir::PrimFunc> lowered;
  std::vector<schedule::State> population;
  {
    StageTimer timer(TuningStage::kLower);  // sampling's time is mostly its validity lowerings
    population = SampleFromSketches(sketches_, target_, options_.population - from_measured, rng_, nullptr,
                                    /*max_draws=*/0, &lowered);
  }
  // Sampling lowered every program to check it: their features come from those lowerings.
  std::vector<std::shared_ptr<const FeatureMatrix>> features(population.size());
  RunOnWorkers(population.size(), 0, [&](size_t i) { features[i] = FeaturesOf(lowered[i]); });
  for (size_t i = 0; i < population.size(); ++i) {
    const std::string hash = population[i].Hash();
    features_.emplace(hash, std::move(features[i]));
    population_lowerings_.emplace(hash, std::make_shared<const tir::PrimFunc>(std::move(lowered[i])));
  }
  for (int i = 0; i < from_measured; ++i) population.push_back(best_measured_[i].second);
  return population;
}

std::shared_ptr<const FeatureMatrix> EvolutionSearchPolicy::FeaturesOf(const tir::PrimFunc& func) {
  StageTimer timer(TuningStage::kFeatures);
  absl::StatusOr<FeatureMatrix> f = ExtractFeatures(func);
  return f.ok() ? std::make_shared<const FeatureMatrix>(std::move(*f)) : nullptr;
}

std::vector<float> EvolutionSearchPolicy::Score(const std::vector<schedule::State>& programs) {
  const float invalid = -std::numeric_limits<float>::infinity();
  std::vector<float> scores(programs.size(), invalid);
  // Programs not seen this round are lowered and featurized on every core of this host: at a
  // population of 512 over 4 generations this is most of the search's time.
  std::vector<std::string> hashes(programs.size());
  std::vector<size_t> unseen;
  std::unordered_set<std::string> queued;
  for (size_t i = 0; i < programs.size(); ++i) {
    hashes[i] = programs[i].Hash();
    if (!features_.count(hashes[i]) && queued.insert(hashes[i]).second) unseen.push_back(i);
  }
  std::vector<std::shared_ptr<const FeatureMatrix>> computed(unseen.size());
  std::vector<std::shared_ptr<const tir::PrimFunc>> funcs(unseen.size());
  RunOnWorkers(unseen.size(), 0, [&](size_t j) {
    absl::StatusOr<tir::PrimFunc> func = [&] {
      StageTimer timer(TuningStage::kLower);
      return LowerProgram(programs[unseen[j]], target_);
    }();
    if (!func.ok()) return;
    computed[j] = FeaturesOf(*func);
    funcs[j] = std::make_shared<const tir::PrimFunc>(std::move(*func));
  });
  for (size_t j = 0; j < unseen.size(); ++j) features_.emplace(hashes[unseen[j]], std::move(computed[j]));
  std::vector<FeatureMatrix> batch;
  std::vector<size_t> where;
  for (size_t i = 0; i < programs.size(); ++i) {
    const std::shared_ptr<const FeatureMatrix>& features = features_.at(hashes[i]);
    if (features == nullptr) continue;
    batch.push_back(*features);
    where.push_back(i);
  }
  absl::StatusOr<std::vector<float>> predicted = [&] {
    StageTimer timer(TuningStage::kCostModel);
    return model_->Predict(batch);
  }();
  if (!predicted.ok()) {
    // Untrained or failing model: every valid program scores the same (random order).
    for (size_t i : where) scores[i] = 1;
    return scores;
  }
  for (size_t j = 0; j < where.size(); ++j) scores[where[j]] = (*predicted)[j];
  for (size_t j = 0; j < unseen.size(); ++j)
    if (funcs[j] != nullptr && computed[j] != nullptr) KeepLowering(hashes[unseen[j]], scores[unseen[j]], funcs[j]);
  ReleaseOnWorkers(&funcs);  // the ones not kept
  return scores;
}

void EvolutionSearchPolicy::KeepLowering(const std::string& hash, float score,
                                         std::shared_ptr<const tir::PrimFunc> func) {
  if (!std::isfinite(score) || kept_lowerings_.count(hash)) return;  // a NaN would break the ordering
  if (kept_by_score_.size() >= kKeptLowerings) {
    if (score <= kept_by_score_.begin()->first) return;
    kept_lowerings_.erase(kept_by_score_.begin()->second);
    kept_by_score_.erase(kept_by_score_.begin());
  }
  kept_by_score_.emplace(score, hash);
  kept_lowerings_.emplace(hash, std::move(func));
}

std::vector<Candidate> EvolutionSearchPolicy::NextBatch(int n, const std::set<std::string>& measured) {
  std::vector<Candidate> out;
  std::unordered_set<std::string> excluded(measured.begin(), measured.end());
  if (!excluded.count(default_.hash) && n > 0) {
    out.push_back(default_);
    excluded.insert(default_.hash);
  }
  last_reused_lowerings_ = 0;
  if (static_cast<int>(out.size()) >= n) return out;
  std::vector<schedule::State> population = InitialPopulation();
  const int want = n - static_cast<int>(out.size());

  std::vector<schedule::State> chosen;
  if (model_->trained()) {
    EvolutionOptions evolution;
    evolution.population = options_.population;
    evolution.generations = options_.generations;
    evolution.eps_greedy = options_.eps_greedy;
    evolution.seed = rng_();
    evolution.check_mutants = false;  // Score lowers every program anyway
    EvolutionResult result = EvolutionarySearch(
        population, target_, [this](const std::vector<schedule::State>& p) { return Score(p); }, excluded, want,
        evolution);
    last_summary_ = result.stats.Summary();
    chosen = std::move(result.programs);
  } else {
    // No model yet: the population in random order is random search.
    std::shuffle(population.begin(), population.end(), rng_);
    for (schedule::State& p : population) {
      if (static_cast<int>(chosen.size()) >= want) break;
      if (excluded.count(p.Hash())) continue;
      chosen.push_back(std::move(p));
    }
    last_summary_ = StrCat("no cost model yet: ", chosen.size(), " random programs of ", population.size());
  }
  for (schedule::State& p : chosen) {
    if (static_cast<int>(out.size()) >= n) break;
    const std::string hash = p.Hash();
    std::shared_ptr<const tir::PrimFunc> lowered;
    if (auto kept = kept_lowerings_.find(hash); kept != kept_lowerings_.end()) {
      lowered = kept->second;
    } else if (auto sampled = population_lowerings_.find(hash); sampled != population_lowerings_.end()) {
      lowered = sampled->second;
    }
    last_reused_lowerings_ += lowered != nullptr;
    auto candidate = MakeCandidate(std::move(p), target_, std::move(lowered));
    if (!candidate.ok() || !excluded.insert(candidate->hash).second) continue;
    out.push_back(std::move(*candidate));
  }
  // What the batch did not take is not needed again: the next batch samples and scores anew.
  ReleaseOnWorkers(&features_);
  kept_by_score_.clear();
  ReleaseOnWorkers(&kept_lowerings_);
  ReleaseOnWorkers(&population_lowerings_);
  return out;
}

void EvolutionSearchPolicy::Observe(const std::vector<MeasuredCandidate>& results) {
  for (const MeasuredCandidate& m : results) {
    const double cost = m.record->IsValid() ? m.record->Cost() : 0.0;
    if (m.candidate->lowered != nullptr) {
      StageTimer timer(TuningStage::kFeatures);
      if (auto f = ExtractFeatures(*m.candidate->lowered); f.ok()) model_->Add(workload_key_, std::move(*f), cost);
    }
    if (cost > 0) best_measured_.push_back({cost, m.candidate->state});
  }
  std::stable_sort(best_measured_.begin(), best_measured_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (best_measured_.size() > kBestMeasuredKept)
    best_measured_.erase(best_measured_.begin() + kBestMeasuredKept, best_measured_.end());
  StageTimer timer(TuningStage::kCostModel);
  if (absl::Status s = model_->Retrain(); !s.ok() && options_.log)
    options_.log(StrCat("cost model: retraining failed (", std::string(s.message()), "); the previous model stays"));
}

}  // namespace tunefarm::tuner
