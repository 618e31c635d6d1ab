// The learned cost model of the search (Ansor's XGBModel): gradient-boosted trees, through
// XGBoost's C API, that score one buffer store (one FeatureMatrix row) at a time; a program's
// score is the sum of its rows' scores ("pack-sum", pack_sum.h). Trained on task-normalized
// throughputs (throughput_labels.h) with Ansor's weighted pack-sum square error
// (pack_sum_objective.h), so a higher score means a faster program, comparable only between
// programs of one task.
//
// Life cycle: a model starts untrained; Predict then fails with FailedPrecondition and the
// caller ranks in random order (as Ansor does before it has data). Train replaces the booster
// as a whole (XGBoost does not train incrementally); on failure the previous booster stays.
// Save/Load go through model_file.h. Not thread-safe: one call at a time.
//
// Determinism: same data, params and seed give the same trees and the same predictions (the
// tree method "hist" with a fixed seed and no sampling; also with nthread > 1).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tuner/cost_model/xgb_handles.h"
#include "tuner/features/feature_matrix.h"

namespace tunefarm::tuner {

struct XgbParams {
  // Tree shape and learning rate as Ansor.
  int max_depth = 10;
  double gamma = 0.001;
  double min_child_weight = 0;
  double eta = 0.2;
  // "hist" (Ansor used XGBoost's default, exact greedy, ~10x slower at 200 rounds). Training
  // time is mostly histogram work per tree node at depth 10: max_bin 64 trains ~3x faster at a
  // small loss of held-out ranking accuracy (bench/tuner/cost_model).
  std::string tree_method = "hist";
  int max_bin = 256;
  // Boosting rounds. With a validation set, training stops once its weighted pack-sum RMSE has
  // not improved for `early_stopping_rounds` rounds and keeps the best round's trees.
  int max_rounds = 200;
  int early_stopping_rounds = 20;
  // Label weights are clamped below by this (pack_sum_objective.h).
  float min_label_weight = 0.05f;
  // XGBoost threads for training and prediction. 1 by default: measurements may be running
  // beside the model on the same machine.
  int nthread = 1;
  uint64_t seed = 43;
};

// Programs and one label each (normalized throughput); spans must stay valid during the call.
struct LabeledPrograms {
  std::span<const FeatureMatrix> programs;
  std::span<const float> labels;
};

struct TrainReport {
  int rounds = 0;                // boosting rounds kept
  double train_rmse = 0;         // weighted pack-sum RMSE on the training programs
  double validation_rmse = -1;   // same on the validation programs; -1 without them
};

class XgbCostModel {
 public:
  explicit XgbCostModel(XgbParams params = {});
  XgbCostModel(XgbCostModel&&) = default;
  XgbCostModel& operator=(XgbCostModel&&) = default;

  const XgbParams& params() const { return params_; }
  bool trained() const { return static_cast<bool>(booster_); }
  int feature_cols() const { return feature_cols_; }  // 0 until trained or loaded

  // Trains a new booster on `train` (at least one program with rows; all programs with rows of
  // one width). `validation`, when given, drives early stopping; it must have rows of the same
  // width, and its labels must be normalized with the training labels (TrainHoldoutSplit).
  absl::StatusOr<TrainReport> Train(const LabeledPrograms& train, const LabeledPrograms* validation = nullptr);

  // One score per program, the sum of its rows' scores (0 for a program without rows).
  // FailedPrecondition when untrained; InvalidArgument when a program's width differs from
  // feature_cols().
  absl::StatusOr<std::vector<float>> Predict(std::span<const FeatureMatrix> programs) const;

  // Writes the trained model atomically; FailedPrecondition when untrained.
  absl::Status Save(const std::string& path) const;
  // Reads a model saved by Save. Errors (each naming `path`): NotFound when missing, DataLoss
  // when empty, truncated or damaged, FailedPrecondition when it was trained on features of
  // another width than `expected_cols`. The caller then retrains.
  static absl::StatusOr<XgbCostModel> Load(const std::string& path, int expected_cols, XgbParams params = {});

 private:
  XgbParams params_;
  XgbBooster booster_;
  int feature_cols_ = 0;
};

}  // namespace tunefarm::tuner
