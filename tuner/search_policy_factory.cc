#include "tuner/search_policy_factory.h"

#include <algorithm>
#include <thread>

#include "common/strings.h"
#include "compiler/schedule/default_rules.h"
#include "tuner/evolution_search_policy.h"
#include "tuner/random_search_policy.h"

namespace tunefarm::tuner {
namespace {

// Database programs that seed a task's population (the best first).
constexpr int kDatabaseBestPerTask = 64;

}  // namespace

SearchPolicyFactory::SearchPolicyFactory(PolicyContext context)
    : context_(std::move(context)), space_(SearchTarget::FromTarget(context_.target)) {
  space_.cores = context_.threads;
}

absl::StatusOr<std::unique_ptr<SearchPolicyFactory>> SearchPolicyFactory::Create(PolicyContext context) {
  std::unique_ptr<SearchPolicyFactory> factory(new SearchPolicyFactory(std::move(context)));
  const PolicyContext& c = factory->context_;
  if (c.config.policy != "evolution") return factory;
  // Training runs between rounds, never beside a measurement (a pipelined job's search ahead,
  // batch_prefetch.h, ends before it), so it may use every core; 64
  // histogram bins train about 3x faster than 256 for a ranking as good (cost_model_bench).
  XgbParams params;
  params.nthread = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  params.max_bin = 64;
  factory->cost_model_ = std::make_unique<JobCostModel>(c.model_path, params, c.log);
  if (c.database != nullptr) {
    const int64_t added =
        factory->cost_model_->AddDatabaseRecords(c.database, c.target.ToString(), c.threads, c.warm_start_records);
    if (c.log && added > 0) c.log(StrCat("cost model: ", added, " earlier records of this target to learn from"));
  }
  factory->cost_model_->LoadOrTrain();
  return factory;
}

absl::StatusOr<std::unique_ptr<SearchPolicy>> SearchPolicyFactory::ForTask(const TuningTask& task, uint64_t seed) {
  schedule::RuleContext rules;
  rules.vector_lanes = context_.target.VectorLanes(te::DType::kFloat32);
  rules.vector_registers = context_.target.VectorRegisters();
  rules.num_threads = context_.threads;
  auto generator = CandidateGenerator::Create(task.dag, rules, space_, seed);
  if (!generator.ok()) return generator.status();
  if (context_.config.policy != "evolution")
    return std::unique_ptr<SearchPolicy>(new RandomSearchPolicy(std::move(*generator)));

  std::vector<std::pair<double, schedule::State>> best;
  if (context_.database != nullptr) {
    auto top =
        context_.database->TopK(task.workload_key, context_.target.ToString(), context_.threads, kDatabaseBestPerTask);
    if (!top.ok()) return top.status();
    for (const db::TuningRecord& r : *top)
      if (auto state = schedule::State::FromJson(task.dag, r.schedule_json); state.ok())
        best.push_back({r.Cost(), *state});
  }
  EvolutionPolicyOptions options;
  options.population = context_.config.population;
  options.generations = context_.config.generations;
  options.log = context_.log;
  auto policy = EvolutionSearchPolicy::Create(task, generator->default_candidate(), space_, cost_model_.get(),
                                              std::move(best), options, seed);
  if (policy.ok()) return std::unique_ptr<SearchPolicy>(std::move(*policy));
  // No sketch for this DAG: variants of the default schedule are all there is to search.
  if (context_.log) context_.log(StrCat(std::string(policy.status().message()), "; searching by random variants"));
  return std::unique_ptr<SearchPolicy>(new RandomSearchPolicy(std::move(*generator)));
}

}  // namespace tunefarm::tuner
