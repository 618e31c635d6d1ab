// The XGBoost pack-sum cost model on synthetic programs whose true throughput is a known
// nonlinear sum over rows (synthetic_programs.h).
#include <cmath>
#include <cstdio>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/farm/child_process.h"
#include "tests/tuner/cost_model/synthetic_programs.h"
#include "tuner/cost_model/ranking_metrics.h"
#include "tuner/cost_model/xgb_cost_model.h"

namespace tunefarm::tuner {
namespace {

using testing::RandomProgram;
using testing::SyntheticOptions;
using testing::SyntheticTrainingSet;

// Trains on the training part of a split; the labels are kept alive for the call.
absl::StatusOr<TrainReport> TrainOn(XgbCostModel& model, const TrainingSet& set) {
  std::vector<float> labels = TaskNormalizedLabels(set);
  return model.Train({set.features, labels});
}

// 500 training programs, 200 held out, of `tasks` tasks.
TrainHoldoutSplit SyntheticSplit(int tasks = 1, uint64_t seed = 1) {
  return SplitTrainHoldout(SyntheticTrainingSet({.programs = 700, .tasks = tasks, .seed = seed}), 200.0 / 700, seed);
}

TEST(XgbCostModel, UntrainedPredictFailsSoTheCallerRanksRandomly) {
  XgbCostModel model;
  EXPECT_FALSE(model.trained());
  std::vector<FeatureMatrix> programs = {RandomProgram(2, 8, 1)};
  absl::StatusOr<std::vector<float>> scores = model.Predict(programs);
  EXPECT_EQ(scores.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(model.Save("/nonexistent/model").code(), absl::StatusCode::kFailedPrecondition);
}

// Per task, held-out programs of one row count: the row count alone says nothing about them.
double SameRowCountPairwiseAccuracy(const TrainingSet& holdout, std::span<const float> scores) {
  std::map<std::pair<std::string, int>, std::pair<std::vector<double>, std::vector<float>>> groups;
  for (size_t i = 0; i < holdout.size(); ++i) {
    auto& [costs, group_scores] = groups[{holdout.tasks[i], holdout.features[i].rows}];
    costs.push_back(holdout.costs_s[i]);
    group_scores.push_back(scores[i]);
  }
  double sum = 0;
  int counted = 0;
  for (const auto& [key, group] : groups) {
    double accuracy = PairwiseAccuracy(group.first, group.second);
    if (std::isnan(accuracy)) continue;
    sum += accuracy;
    ++counted;
  }
  return sum / counted;
}

// The ranking the search relies on, and the pack-sum calibration: a program's score estimates
// its label (a model that fits each row to its program's label instead ranks nearly as well but
// scores a 6-row program about 6 times too high).
TEST(XgbCostModel, RanksAndScoresHeldOutProgramsWell) {
  for (int tasks : {1, 2}) {
    SCOPED_TRACE(tasks);
    TrainHoldoutSplit split = SyntheticSplit(tasks);
    XgbCostModel model;
    absl::StatusOr<TrainReport> report = model.Train({split.train.features, split.train_labels});
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_GT(report->rounds, 0);
    absl::StatusOr<std::vector<float>> scores = model.Predict(split.holdout.features);
    ASSERT_TRUE(scores.ok()) << scores.status();
    for (const auto& [task, quality] : RankingByTask(split.holdout.tasks, split.holdout.costs_s, *scores, 5)) {
      SCOPED_TRACE(task);
      std::printf("  %d task(s), %s: %d held-out programs, pairwise accuracy %.3f, top-5 recall %.2f\n", tasks,
                  task.c_str(), quality.programs, quality.pairwise_accuracy, quality.top_k_recall);
      EXPECT_GT(quality.pairwise_accuracy, 0.8);
      EXPECT_GT(quality.top_k_recall, 0.0);
    }
    double same_rows = SameRowCountPairwiseAccuracy(split.holdout, *scores);
    double squared = 0;
    for (size_t i = 0; i < scores->size(); ++i) {
      squared += std::pow((*scores)[i] - split.holdout_labels[i], 2);
    }
    double rmse = std::sqrt(squared / scores->size());
    std::printf("  %d task(s): pairwise accuracy among equal row counts %.3f, held-out RMSE %.4f\n", tasks,
                same_rows, rmse);
    EXPECT_GT(same_rows, 0.7);
    EXPECT_LT(rmse, 0.1);
  }
}

TEST(XgbCostModel, ValidationSetStopsEarlyAndKeepsTheBestRounds) {
  TrainHoldoutSplit split = SyntheticSplit();
  TrainHoldoutSplit fit_val = SplitTrainHoldout(split.train, 0.2, 3);
  XgbParams params;
  params.max_rounds = 300;
  params.early_stopping_rounds = 10;
  XgbCostModel model(params);
  LabeledPrograms validation{fit_val.holdout.features, fit_val.holdout_labels};
  absl::StatusOr<TrainReport> report = model.Train({fit_val.train.features, fit_val.train_labels}, &validation);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->rounds, 0);
  EXPECT_LT(report->rounds, params.max_rounds);
  EXPECT_GE(report->validation_rmse, 0);
  std::printf("  early stopping kept %d rounds, validation RMSE %.4f\n", report->rounds, report->validation_rmse);
  absl::StatusOr<std::vector<float>> scores = model.Predict(split.holdout.features);
  ASSERT_TRUE(scores.ok());
  EXPECT_GT(PairwiseAccuracy(split.holdout.costs_s, *scores), 0.8);
}

TEST(XgbCostModel, ProgramScoreIsTheSumOfItsRowScores) {
  TrainHoldoutSplit split = SyntheticSplit();
  XgbCostModel model;
  ASSERT_TRUE(TrainOn(model, split.train).ok());
  FeatureMatrix program = RandomProgram(5, 8, 99);
  std::vector<FeatureMatrix> batch = {program};
  for (int r = 0; r < program.rows; ++r) {
    batch.push_back({1, program.cols, std::vector<float>(program.row(r), program.row(r) + program.cols)});
  }
  FeatureMatrix twice = batch[1];
  twice.rows = 2;
  twice.values.insert(twice.values.end(), batch[1].values.begin(), batch[1].values.end());
  batch.push_back(twice);
  batch.push_back({0, 0, {}});  // no rows: scores 0
  absl::StatusOr<std::vector<float>> scores = model.Predict(batch);
  ASSERT_TRUE(scores.ok()) << scores.status();
  double row_sum = 0;
  for (int r = 1; r <= program.rows; ++r) row_sum += (*scores)[r];
  EXPECT_NEAR((*scores)[0], row_sum, 1e-5 * (1 + std::abs(row_sum)));
  EXPECT_NEAR(scores->at(program.rows + 1), 2 * (*scores)[1], 1e-6 * (1 + std::abs((*scores)[1])));
  EXPECT_EQ(scores->back(), 0.0f);
}

TEST(XgbCostModel, SameDataAndSeedGiveTheSamePredictions) {
  TrainHoldoutSplit split = SyntheticSplit();
  for (int nthread : {1, 2}) {
    XgbParams params;
    params.nthread = nthread;
    XgbCostModel a(params), b(params);
    ASSERT_TRUE(TrainOn(a, split.train).ok());
    ASSERT_TRUE(TrainOn(b, split.train).ok());
    EXPECT_EQ(*a.Predict(split.holdout.features), *b.Predict(split.holdout.features)) << "nthread " << nthread;
  }
}

TEST(XgbCostModel, WidthMismatchIsAnError) {
  TrainHoldoutSplit split = SyntheticSplit();
  XgbCostModel model;
  ASSERT_TRUE(TrainOn(model, split.train).ok());
  EXPECT_EQ(model.feature_cols(), 8);
  std::vector<FeatureMatrix> wider = {RandomProgram(2, 9, 1)};
  EXPECT_EQ(model.Predict(wider).status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<FeatureMatrix> mixed = {RandomProgram(2, 8, 1), RandomProgram(1, 9, 2)};
  std::vector<float> labels = {1.0f, 0.5f};
  EXPECT_EQ(model.Train({mixed, labels}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(XgbCostModel, FailedTrainingKeepsThePreviousModel) {
  TrainHoldoutSplit split = SyntheticSplit();
  XgbCostModel model;
  ASSERT_TRUE(TrainOn(model, split.train).ok());
  std::vector<float> before = *model.Predict(split.holdout.features);
  std::vector<float> too_few_labels = {1.0f};
  EXPECT_FALSE(model.Train({split.train.features, too_few_labels}).ok());
  std::vector<FeatureMatrix> no_rows = {FeatureMatrix{}};
  std::vector<float> one_label = {1.0f};
  EXPECT_FALSE(model.Train({no_rows, one_label}).ok());
  std::vector<float> nan_labels(split.train.size(), std::nanf(""));
  EXPECT_FALSE(model.Train({split.train.features, nan_labels}).ok());
  ASSERT_TRUE(model.trained());
  EXPECT_EQ(*model.Predict(split.holdout.features), before);
}

TEST(XgbCostModel, SaveThenLoadPredictsTheSame) {
  TrainHoldoutSplit split = SyntheticSplit();
  XgbCostModel model;
  ASSERT_TRUE(TrainOn(model, split.train).ok());
  tunefarm::testing::TempDir dir;
  std::string path = dir.path() + "/model.tfcm";
  ASSERT_TRUE(model.Save(path).ok());
  absl::StatusOr<XgbCostModel> loaded = XgbCostModel::Load(path, 8);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->trained());
  EXPECT_EQ(loaded->feature_cols(), 8);
  EXPECT_EQ(*loaded->Predict(split.holdout.features), *model.Predict(split.holdout.features));

  absl::StatusOr<XgbCostModel> other_width = XgbCostModel::Load(path, 164);
  EXPECT_EQ(other_width.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(other_width.status().message().find(path), std::string::npos) << other_width.status();
}

}  // namespace
}  // namespace tunefarm::tuner
