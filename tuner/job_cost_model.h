// The cost model of one job. Ansor trains one model for all the tasks of a job; so does this:
// every measured program of every task is a training sample (its features and its cost), and
// labels are normalized per task (throughput_labels.h), so one model serves convs and dense
// layers alike.
//  - Warm start: the samples begin with the database's records for the job's target and
//    thread count, across workloads (TenSet-style pretraining on what this farm has measured
//    before), and the model is trained on them before the first round.
//  - Retrained after every round on everything so far.
//  - Saved with the job (beside the database, `<db>.models/<job id>.xgb`) after each training;
//    a resumed job loads it, so it ranks from its first round. A corrupt or missing file is
//    said in the log and the model is retrained from the samples.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "db/tuning_database.h"
#include "tuner/cost_model/training_set.h"
#include "tuner/cost_model/xgb_cost_model.h"

namespace tunefarm::tuner {

class JobCostModel {
 public:
  using Log = std::function<void(const std::string&)>;
  JobCostModel(std::string save_path, XgbParams params, Log log);

  // The saved model when it loads; otherwise says why (unless there was none) and trains on
  // the samples added so far (when there are any).
  void LoadOrTrain();
  // Adds the database's records of (target, threads), newest first, up to `limit`; each is
  // replayed, lowered and featurized. Returns how many were added.
  int64_t AddDatabaseRecords(db::TuningDatabase* database, const std::string& target, int threads, int limit);

  void Add(const std::string& workload_key, FeatureMatrix features, double cost_s);
  // Trains on every sample and saves; an error leaves the previous model in place.
  absl::Status Retrain();

  bool trained() const { return model_.trained(); }
  // One score per program (higher: faster); FailedPrecondition while untrained.
  absl::StatusOr<std::vector<float>> Predict(std::span<const FeatureMatrix> programs) const {
    return model_.Predict(programs);
  }
  int64_t samples() const { return static_cast<int64_t>(samples_.size()); }
  const std::string& save_path() const { return save_path_; }

 private:
  std::string save_path_;
  Log log_;
  XgbCostModel model_;
  TrainingSet samples_;
  int64_t trained_on_ = 0;  // samples at the last training
};

// Where a job's model is saved: "<db path>.models/<job id>.xgb".
std::string JobModelPath(const std::string& db_path, const std::string& job_id);

}  // namespace tunefarm::tuner
