// What evolutionary search costs before any cost model: for GEMM 1024^3 and ResNet-18's 3x3
// conv2d (NCHW 1x64x56x56, 64 filters, stride 1, pad 1), with a synthetic score that costs
// nothing (the innermost split lengths, added):
//   - mutants per second, with CheckProgram on each new mutant (it lowers) and replay only;
//   - one search round: population 2048, 4 generations, both ways;
//   - the success rate of each mutation rule.
// One core, except the sampling's lowering checks and a last search round whose mutations run
// on every core; the target is AVX2 with this machine's core count (only `cores` matters here).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "bench/compiler/bench_kernels.h"
#include "bench/compiler/bench_workloads.h"
#include "common/allocator_name.h"
#include "common/strings.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/matmul.h"
#include "tuner/evolution/evolutionary_search.h"
#include "tuner/search_space/initial_population.h"

namespace tunefarm {
namespace {

using schedule::State;
using Clock = std::chrono::steady_clock;
using DagPtr = std::shared_ptr<const te::ComputeDag>;

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }



std::vector<float> InnermostScore(const std::vector<State>& programs) {
  std::vector<float> out;
  for (const State& p : programs) {
    float s = 1;
    for (const schedule::Step& step : p.steps())
      if (const auto* sp = std::get_if<schedule::SplitStep>(&step)) s += static_cast<float>(sp->lengths.back().value_or(1));
    out.push_back(s);
  }
  return out;
}

// Mutants of random parents for about `seconds`.
double MutantsPerSecond(const std::vector<State>& parents, const tuner::SearchTarget& target, bool check,
                        double seconds) {
  tuner::Mutator mutator(target, 8, check);
  std::vector<std::string> hashes;
  for (const State& p : parents) hashes.push_back(p.Hash());
  std::mt19937_64 rng(1);
  int64_t made = 0;
  const auto start = Clock::now();
  while (SecondsSince(start) < seconds)
    for (int i = 0; i < 16; ++i) {
      const size_t k = rng() % parents.size();
      made += mutator.Mutate(parents[k], hashes[k], rng).has_value();
    }
  return static_cast<double>(made) / SecondsSince(start);
}

void Run(const std::string& name, const DagPtr& dag, const tuner::SearchTarget& target) {
  std::printf("\n== %s ==\n", name.c_str());
  std::mt19937_64 rng(7);
  tuner::SampleStats stats;
  auto start = Clock::now();
  std::vector<State> initial = tuner::SampleInitialPopulation(dag, target, 256, rng, &stats);
  std::printf("  initial population      %zu programs in %.2f s (%s)\n", initial.size(), SecondsSince(start),
              stats.Summary().c_str());
  std::printf("  mutants/s, checked      %8.0f   (replay + hash + CheckProgram, cache off the hot path)\n",
              MutantsPerSecond(initial, target, true, 3));
  std::printf("  mutants/s, replay only  %8.0f   (check left to the score function)\n",
              MutantsPerSecond(initial, target, false, 3));
  struct Round {
    bool check;
    int threads;
    const char* name;
  };
  for (const Round& round : {Round{true, 1, "check every mutant"}, Round{false, 1, "replay only, checked at the end"},
                             Round{false, 0, "replay only, mutations on every core"}}) {
    tuner::EvolutionOptions o;  // population 2048, 4 generations
    o.seed = 3;
    o.check_mutants = round.check;
    o.threads = round.threads;
    tuner::EvolutionResult r = tuner::EvolutionarySearch(initial, target, InnermostScore, {}, 64, o);
    std::printf("  search round (%s): %.2f s, %zu returned, best score %.0f\n", round.name, r.stats.seconds,
                r.programs.size(), r.scores.empty() ? 0.0 : r.scores[0]);
    std::printf("    %s\n", r.stats.Summary(round.check).c_str());
  }
}

}  // namespace
}  // namespace tunefarm

int main() {
  using namespace tunefarm;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  auto t = codegen::Target::Parse(StrCat("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell -num-cores=", cores));
  if (!t.ok()) {
    std::fprintf(stderr, "%s\n", std::string(t.status().message()).c_str());
    return 1;
  }
  const tuner::SearchTarget target = tuner::SearchTarget::FromTarget(*t);
  std::printf("evolution_bench on %s (%u cores), %s\n", bench::CpuModelName().c_str(), cores,
              AllocatorName().c_str());
  Run("gemm 1024^3", bench::MatmulDag(1024, 1024, 1024), target);
  Run("resnet-18 conv2d 1x64x56x56, 64x3x3, s1 p1", bench::ConvDag(bench::ResNet18Convs()[0]), target);
  return 0;
}
