#include "tuner/evolution/evolutionary_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "common/strings.h"
#include "tuner/parallel_work.h"

namespace tunefarm::tuner {
namespace {

using schedule::State;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Population {
  std::vector<State> programs;
  std::vector<std::string> hashes;
  std::vector<float> scores;
};

// Scores every program, asking `score` only for hashes it has not scored yet (a program's
// score is a function of its steps, and copies and repeated mutants are common).
class Scorer {
 public:
  Scorer(const ScoreFunction& score, EvolutionStats* stats) : score_(score), stats_(stats) {}

  void Score(Population* pop) {
    const auto start = Clock::now();
    std::vector<State> batch;
    std::vector<const std::string*> batch_hashes;
    std::set<std::string_view> in_batch;
    for (size_t i = 0; i < pop->programs.size(); ++i)
      if (!known_.count(pop->hashes[i]) && in_batch.insert(pop->hashes[i]).second) {
        batch.push_back(pop->programs[i]);
        batch_hashes.push_back(&pop->hashes[i]);
      }
    if (!batch.empty()) {
      std::vector<float> scores = score_(batch);
      for (size_t i = 0; i < batch.size(); ++i) {
        const float s = i < scores.size() ? scores[i] : NAN;
        stats_->invalid_scores += !std::isfinite(s);
        known_[*batch_hashes[i]] = s;
      }
      stats_->scored += static_cast<int64_t>(batch.size());
    }
    pop->scores.clear();
    for (const std::string& h : pop->hashes) pop->scores.push_back(known_.at(h));
    stats_->score_seconds += SecondsSince(start);
  }

 private:
  const ScoreFunction& score_;
  EvolutionStats* stats_;
  std::unordered_map<std::string, float> known_;
};

// The best distinct programs seen whose hash is not excluded, by score (ties: the first seen).
class BestPrograms {
 public:
  BestPrograms(size_t capacity, const std::unordered_set<std::string>& excluded)
      : capacity_(capacity), excluded_(excluded) {}

  void Offer(const Population& pop) {
    for (size_t i = 0; i < pop.programs.size(); ++i) {
      const float s = pop.scores[i];
      if (!std::isfinite(s) || excluded_.count(pop.hashes[i]) || by_hash_.count(pop.hashes[i])) continue;
      if (best_.size() >= capacity_ && s <= best_.rbegin()->first.first) continue;
      auto it = best_.emplace(std::make_pair(s, -static_cast<int64_t>(offered_++)), Entry{pop.programs[i], pop.hashes[i]});
      by_hash_.insert(it->second.hash);
      if (best_.size() > capacity_) {
        auto last = std::prev(best_.end());
        by_hash_.erase(last->second.hash);
        best_.erase(last);
      }
    }
  }

  struct Entry {
    State program;
    std::string hash;
  };
  // Best first.
  const std::multimap<std::pair<float, int64_t>, Entry, std::greater<>>& entries() const { return best_; }

 private:
  size_t capacity_;
  const std::unordered_set<std::string>& excluded_;
  int64_t offered_ = 0;
  std::multimap<std::pair<float, int64_t>, Entry, std::greater<>> best_;
  std::unordered_set<std::string> by_hash_;
};

// Roulette: index i with probability max(score_i, 0) / sum (uniform when nothing is positive).
size_t PickParent(const std::vector<double>& prefix, std::mt19937_64& rng) {
  if (prefix.back() <= 0) return rng() % prefix.size();
  const double x = std::uniform_real_distribution<double>(0, prefix.back())(rng);
  return std::min<size_t>(std::upper_bound(prefix.begin(), prefix.end(), x) - prefix.begin(), prefix.size() - 1);
}

// Parents and coin flips are drawn in slot order from `rng`, with one seed per slot; the
// mutations then run on every core, each slot with its own generator. So a seed gives the same
// generation whatever the number of workers.
Population NextGeneration(const Population& pop, const EvolutionOptions& options, Mutator* mutator,
                          std::mt19937_64& rng, EvolutionStats* stats) {
  std::vector<double> prefix;
  double sum = 0;
  for (float s : pop.scores) prefix.push_back(sum += std::isfinite(s) ? std::max(0.0f, s) : 0.0);
  struct Slot {
    size_t parent;
    bool mutate;
    uint64_t seed;
  };
  std::vector<Slot> slots(static_cast<size_t>(std::max(0, options.population)));
  std::bernoulli_distribution mutate(options.mutation_probability);
  for (Slot& slot : slots) {
    slot.parent = PickParent(prefix, rng);
    slot.mutate = mutate(rng);
    slot.seed = rng();
  }
  std::vector<std::optional<Mutant>> mutants(slots.size());
  RunOnWorkers(slots.size(), static_cast<size_t>(std::max(0, options.threads)), [&](size_t i) {
    if (!slots[i].mutate) return;
    std::mt19937_64 slot_rng(slots[i].seed);
    mutants[i] = mutator->Mutate(pop.programs[slots[i].parent], pop.hashes[slots[i].parent], slot_rng);
  });
  Population next;
  next.programs.reserve(slots.size());
  next.hashes.reserve(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    if (mutants[i].has_value()) {
      next.programs.push_back(std::move(mutants[i]->program));
      next.hashes.push_back(std::move(mutants[i]->hash));
      continue;
    }
    ++stats->copies;
    next.programs.push_back(pop.programs[slots[i].parent]);
    next.hashes.push_back(pop.hashes[slots[i].parent]);
  }
  return next;
}

// The best programs, then ceil(eps * k) random valid unmeasured ones from `pool`; every one
// passes CheckProgram (cached: with check_mutants, mutants were checked when made).
void PickResult(const BestPrograms& best, const std::vector<const Population*>& pool, int k,
                const EvolutionOptions& options, const std::unordered_set<std::string>& excluded, Mutator* mutator,
                std::mt19937_64& rng, EvolutionResult* out) {
  const int num_random = std::min(k, static_cast<int>(std::ceil(options.eps_greedy * k)));
  std::unordered_set<std::string> taken;
  auto take = [&](const State& p, const std::string& hash, float score) {
    if (excluded.count(hash) || taken.count(hash) || !mutator->Check(p, hash).ok()) return;
    taken.insert(hash);
    out->programs.push_back(p);
    out->hashes.push_back(hash);
    out->scores.push_back(score);
  };
  for (const auto& [key, entry] : best.entries()) {
    if (static_cast<int>(out->programs.size()) >= k - num_random) break;
    take(entry.program, entry.hash, key.first);
  }
  std::vector<std::pair<const Population*, size_t>> candidates;
  for (const Population* p : pool)
    for (size_t i = 0; i < p->programs.size(); ++i) candidates.emplace_back(p, i);
  std::shuffle(candidates.begin(), candidates.end(), rng);
  const size_t before = out->programs.size();
  for (const auto& [p, i] : candidates) {
    if (static_cast<int>(out->programs.size()) >= k) break;
    if (std::isfinite(p->scores[i])) take(p->programs[i], p->hashes[i], p->scores[i]);
  }
  out->num_random = static_cast<int>(out->programs.size() - before);
}

}  // namespace

std::string EvolutionStats::Summary(bool messages) const {
  return StrCat(generations, " generations, ", scored, " scored (", invalid_scores, " invalid), ", copies,
                " copies, ", mutations.checks, " checks, ", seconds, " s (scoring ", score_seconds, " s)\n",
                mutations.Summary(messages));
}

EvolutionResult EvolutionarySearch(const std::vector<State>& initial, const SearchTarget& target,
                                   const ScoreFunction& score, const std::unordered_set<std::string>& excluded, int k,
                                   const EvolutionOptions& options) {
  const auto start = Clock::now();
  EvolutionResult result;
  if (initial.empty() || k <= 0) return result;
  std::mt19937_64 rng(options.seed);
  Mutator mutator(target, options.max_mutation_tries, options.check_mutants);
  Scorer scorer(score, &result.stats);
  BestPrograms best(static_cast<size_t>(2 * k), excluded);

  Population first{initial, {}, {}};
  for (const State& p : initial) first.hashes.push_back(p.Hash());
  scorer.Score(&first);
  best.Offer(first);
  Population pop = first;
  for (int g = 0; g < options.generations; ++g) {
    pop = NextGeneration(pop, options, &mutator, rng, &result.stats);
    scorer.Score(&pop);
    best.Offer(pop);
    ++result.stats.generations;
  }
  PickResult(best, {&pop, &first}, k, options, excluded, &mutator, rng, &result);
  result.stats.mutations = mutator.stats();
  result.stats.seconds = SecondsSince(start);
  return result;
}

}  // namespace tunefarm::tuner
