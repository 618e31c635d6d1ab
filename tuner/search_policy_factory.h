// Makes each task's search policy for a job, and owns what the tasks of a job share: the
// search target and, for the evolutionary search, the job's cost model (job_cost_model.h),
// warm-started from the database before the first round.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "db/tuning_database.h"
#include "tuner/job_cost_model.h"
#include "tuner/job_spec.h"
#include "tuner/search_policy.h"
#include "tuner/search_space/search_target.h"
#include "tuner/tuning_task.h"

namespace tunefarm::tuner {

struct PolicyContext {
  SearchConfig config;
  codegen::Target target;
  int threads = 1;
  db::TuningDatabase* database = nullptr;  // the best records seed each task's population
  std::string model_path;                  // where the job's cost model is saved ("": not saved)
  int warm_start_records = 5000;           // database records the model starts from
  std::function<void(const std::string&)> log;
};

class SearchPolicyFactory {
 public:
  static absl::StatusOr<std::unique_ptr<SearchPolicyFactory>> Create(PolicyContext context);

  // The policy of one task; `seed` fixes its sequence (the same job and task, the same draws).
  absl::StatusOr<std::unique_ptr<SearchPolicy>> ForTask(const TuningTask& task, uint64_t seed);

  JobCostModel* cost_model() { return cost_model_.get(); }

 private:
  explicit SearchPolicyFactory(PolicyContext context);

  PolicyContext context_;
  SearchTarget space_;
  std::unique_ptr<JobCostModel> cost_model_;  // evolution only
};

}  // namespace tunefarm::tuner
