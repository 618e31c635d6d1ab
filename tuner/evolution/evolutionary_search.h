// Evolutionary search (Ansor's): from an initial population of programs, breed generations by
// mutation, guided by a score (the cost model's prediction, higher is better), and return the
// best distinct programs not measured yet.
//
//   score the population; keep the best distinct unmeasured programs seen (by schedule hash)
//   each generation: pick parents in proportion to their score (roulette; a score <= 0 is never
//   picked, all uniform when none is positive), mutate one with probability 0.85
//   (mutation_rules.h, on every core) or copy it, until the population is full again; score it
//   after the last generation: the best k - ceil(eps * k) programs, then ceil(eps * k) random
//   valid unmeasured programs of the populations seen (eps-greedy exploration)
//
// Validity. Every mutant replays; by default each new one is also checked with CheckProgram.
// That lowers, which costs 5 to 15 times the replay (evolution_bench, one core: a round of 2048 x
// 4 generations takes about 2-3 s on GEMM 1024^3 and 4-6 s on ResNet-18's conv checked, 0.2-0.6 s
// replay only). With check_mutants false the search
// leaves that to the score function, which lowers anyway to extract features: it must return a
// non-finite score (NaN or -inf) for a program that does not lower or whose local tiles do not
// fit; such programs are dropped. Either way, every program returned passed CheckProgram.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/schedule/state.h"
#include "tuner/evolution/mutation_rules.h"
#include "tuner/search_space/search_target.h"

namespace tunefarm::tuner {

// Scores for a batch of programs, in order (higher is better; non-finite: invalid).
using ScoreFunction = std::function<std::vector<float>(const std::vector<schedule::State>&)>;

struct EvolutionOptions {
  int population = 2048;
  int generations = 4;
  double mutation_probability = 0.85;
  double eps_greedy = 0.05;  // the fraction of the result drawn at random
  uint64_t seed = 0;
  int max_mutation_tries = 8;  // draws per mutant before the parent is copied instead
  bool check_mutants = true;   // CheckProgram every new mutant (else: the score reports invalid ones)
  int threads = 0;             // mutation workers (0: one per core); the result does not depend on it
};

struct EvolutionStats {
  int generations = 0;
  int64_t scored = 0;         // programs passed to the score function
  int64_t invalid_scores = 0;  // non-finite scores
  int64_t copies = 0;          // parents copied (by choice, or when no mutation succeeded)
  MutationStats mutations;
  double seconds = 0, score_seconds = 0;
  std::string Summary(bool messages = false) const;  // see MutationStats::Summary
};

struct EvolutionResult {
  std::vector<schedule::State> programs;  // the best first, then the random picks
  std::vector<std::string> hashes;
  std::vector<float> scores;
  int num_random = 0;  // the last num_random programs are the eps-greedy picks
  EvolutionStats stats;
};

// Up to `k` distinct programs, none of whose hashes is in `excluded` (fewer when the search
// finds fewer). The initial population is expected valid (SampleInitialPopulation's); the same
// seed gives the same result.
EvolutionResult EvolutionarySearch(const std::vector<schedule::State>& initial, const SearchTarget& target,
                                   const ScoreFunction& score, const std::unordered_set<std::string>& excluded, int k,
                                   const EvolutionOptions& options = {});

}  // namespace tunefarm::tuner
