#include "tuner/job_cost_model.h"

#include <filesystem>

#include "common/strings.h"
#include "tuner/database_samples.h"
#include "tuner/features/program_features.h"

namespace tunefarm::tuner {

std::string JobModelPath(const std::string& db_path, const std::string& job_id) {
  return StrCat(db_path, ".models/", job_id, ".xgb");
}

JobCostModel::JobCostModel(std::string save_path, XgbParams params, Log log)
    : save_path_(std::move(save_path)), log_(std::move(log)), model_(params) {}

void JobCostModel::LoadOrTrain() {
  std::error_code ec;
  if (std::filesystem::exists(save_path_, ec)) {
    auto loaded = XgbCostModel::Load(save_path_, static_cast<int>(StoreFeatureNames().size()), model_.params());
    if (loaded.ok()) {
      model_ = std::move(*loaded);
      if (log_) log_(StrCat("cost model: resumed from ", save_path_));
      return;
    }
    if (log_)
      log_(StrCat("cost model: the saved model cannot be used (", std::string(loaded.status().message()),
                  "); retraining it from ", samples_.size(), " records"));
  }
  if (samples_.size() == 0) return;
  if (absl::Status s = Retrain(); !s.ok() && log_)
    log_(StrCat("cost model: training failed: ", std::string(s.message())));
}

int64_t JobCostModel::AddDatabaseRecords(db::TuningDatabase* database, const std::string& target, int threads,
                                         int limit) {
  auto samples = SamplesFromDatabase(database, target, threads, limit);
  if (!samples.ok()) {
    if (log_) log_(StrCat("cost model: cannot read earlier records: ", std::string(samples.status().message())));
    return 0;
  }
  for (size_t i = 0; i < samples->set.size(); ++i)
    Add(samples->set.tasks[i], std::move(samples->set.features[i]), samples->set.costs_s[i]);
  return static_cast<int64_t>(samples->set.size());
}

void JobCostModel::Add(const std::string& workload_key, FeatureMatrix features, double cost_s) {
  samples_.Add(workload_key, std::move(features), cost_s);
}

absl::Status JobCostModel::Retrain() {
  if (samples_.size() == 0) return absl::OkStatus();
  std::vector<float> labels = TaskNormalizedLabels(samples_);
  LabeledPrograms train{samples_.features, labels};
  auto report = model_.Train(train);
  if (!report.ok()) return report.status();
  trained_on_ = static_cast<int64_t>(samples_.size());
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(save_path_).parent_path(), ec);
  if (absl::Status s = model_.Save(save_path_); !s.ok() && log_)
    log_(StrCat("cost model: cannot save it (", std::string(s.message()), "); a resumed job will retrain it"));
  return absl::OkStatus();
}

}  // namespace tunefarm::tuner
