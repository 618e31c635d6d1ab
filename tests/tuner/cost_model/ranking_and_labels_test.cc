// The cost model's data plumbing without XGBoost: labels, ranking metrics, the training set and
// the pack-sum layout and loss.
#include <cmath>
#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "tuner/cost_model/pack_sum.h"
#include "tuner/cost_model/pack_sum_objective.h"
#include "tuner/cost_model/ranking_metrics.h"
#include "tuner/cost_model/throughput_labels.h"
#include "tuner/cost_model/training_set.h"

namespace tunefarm::tuner {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

FeatureMatrix Rows(int rows, int cols, float value) {
  return FeatureMatrix{rows, cols, std::vector<float>(static_cast<size_t>(rows) * cols, value)};
}

TEST(NormalizedThroughput, BestOverCostAndZeroForInvalid) {
  std::vector<double> costs = {2.0, 1.0, 4.0, 0.0, -1.0, kNaN, kInf};
  std::vector<float> labels = NormalizedThroughput(costs);
  std::vector<float> expected = {0.5f, 1.0f, 0.25f, 0.0f, 0.0f, 0.0f, 0.0f};
  EXPECT_EQ(labels, expected);
}

TEST(NormalizedThroughput, AllInvalidGivesZeros) {
  std::vector<double> costs = {0.0, kNaN};
  EXPECT_EQ(NormalizedThroughput(costs), std::vector<float>({0.0f, 0.0f}));
  EXPECT_TRUE(NormalizedThroughput({}).empty());
}

TEST(TaskNormalizedLabels, EachTaskHasItsOwnBest) {
  TrainingSet set;
  set.Add("small", Rows(1, 2, 0), 1e-5);
  set.Add("big", Rows(1, 2, 0), 2.0);
  set.Add("small", Rows(1, 2, 0), 2e-5);
  set.Add("big", Rows(1, 2, 0), 1.0);
  set.Add("big", Rows(1, 2, 0), -1.0);
  EXPECT_EQ(TaskNormalizedLabels(set), std::vector<float>({1.0f, 0.5f, 0.5f, 1.0f, 0.0f}));
}

TEST(RankingMetrics, PerfectOrderScoresOne) {
  std::vector<double> costs = {1, 2, 3, 4, 5};
  std::vector<float> scores = {10, 8, 6, 4, 2};
  EXPECT_DOUBLE_EQ(PairwiseAccuracy(costs, scores), 1.0);
  EXPECT_DOUBLE_EQ(TopKRecall(costs, scores, 2), 1.0);
}

TEST(RankingMetrics, ReversedOrderScoresZero) {
  std::vector<double> costs = {1, 2, 3, 4, 5};
  std::vector<float> scores = {2, 4, 6, 8, 10};
  EXPECT_DOUBLE_EQ(PairwiseAccuracy(costs, scores), 0.0);
  EXPECT_DOUBLE_EQ(TopKRecall(costs, scores, 2), 0.0);
  EXPECT_DOUBLE_EQ(TopKRecall(costs, scores, 3), 1.0 / 3);  // the middle one is in both
}

TEST(RankingMetrics, ConstantScoresAreChance) {
  std::vector<double> costs = {1, 2, 3, 4};
  std::vector<float> scores = {1, 1, 1, 1};
  EXPECT_DOUBLE_EQ(PairwiseAccuracy(costs, scores), 0.5);
}

TEST(RankingMetrics, EqualCostsAreSkippedAndInvalidRanksLast) {
  // Pairs: (0,1) equal cost, skipped; (2,3) both invalid, skipped. Invalid programs are slower
  // than every valid one, so scoring them lowest is right.
  std::vector<double> costs = {1, 1, 0, kNaN};
  std::vector<float> scores = {5, 3, 1, 2};
  EXPECT_DOUBLE_EQ(PairwiseAccuracy(costs, scores), 1.0);
  // Two valid programs: k = 3 shrinks to 2, and the two highest scores are the valid ones.
  EXPECT_DOUBLE_EQ(TopKRecall(costs, scores, 3), 1.0);
}

TEST(RankingMetrics, UndefinedIsNaN) {
  std::vector<double> same = {2, 2};
  std::vector<float> scores = {1, 0};
  EXPECT_TRUE(std::isnan(PairwiseAccuracy(same, scores)));
  std::vector<double> invalid = {0, -1};
  EXPECT_TRUE(std::isnan(TopKRecall(invalid, scores, 1)));
}

TEST(RankingMetrics, ByTaskGroupsPrograms) {
  std::vector<std::string> tasks = {"a", "b", "a", "b"};
  std::vector<double> costs = {1, 1, 2, 2};
  std::vector<float> scores = {1, 0, 0, 1};  // right in a, wrong in b
  auto quality = RankingByTask(tasks, costs, scores, 1);
  ASSERT_EQ(quality.size(), 2u);
  EXPECT_EQ(quality["a"].programs, 2);
  EXPECT_DOUBLE_EQ(quality["a"].pairwise_accuracy, 1.0);
  EXPECT_DOUBLE_EQ(quality["a"].top_k_recall, 1.0);
  EXPECT_DOUBLE_EQ(quality["b"].pairwise_accuracy, 0.0);
  EXPECT_DOUBLE_EQ(quality["b"].top_k_recall, 0.0);
}

TEST(SplitTrainHoldout, SizesDisjointAndSeeded) {
  TrainingSet set;
  for (int i = 0; i < 100; ++i) set.Add("t", Rows(1, 1, static_cast<float>(i)), i + 1.0);
  TrainHoldoutSplit a = SplitTrainHoldout(set, 0.3, 7);
  TrainHoldoutSplit b = SplitTrainHoldout(set, 0.3, 7);
  TrainHoldoutSplit c = SplitTrainHoldout(set, 0.3, 8);
  EXPECT_EQ(a.holdout.size(), 30u);
  EXPECT_EQ(a.train.size(), 70u);
  EXPECT_EQ(a.holdout.costs_s, b.holdout.costs_s);
  EXPECT_NE(a.holdout.costs_s, c.holdout.costs_s);
  std::set<double> all(a.train.costs_s.begin(), a.train.costs_s.end());
  all.insert(a.holdout.costs_s.begin(), a.holdout.costs_s.end());
  EXPECT_EQ(all.size(), 100u);
  // Features travel with their costs; labels are normalized over the whole set (best cost 1).
  for (size_t i = 0; i < a.holdout.size(); ++i) {
    EXPECT_EQ(a.holdout.features[i].values[0] + 1.0, a.holdout.costs_s[i]);
    EXPECT_FLOAT_EQ(a.holdout_labels[i], 1.0 / a.holdout.costs_s[i]);
  }
  for (size_t i = 0; i < a.train.size(); ++i) EXPECT_FLOAT_EQ(a.train_labels[i], 1.0 / a.train.costs_s[i]);
}

TEST(PackRows, FlattensAndSkipsEmptyPrograms) {
  std::vector<FeatureMatrix> programs = {Rows(2, 3, 1), Rows(0, 0, 0), Rows(1, 3, 2)};
  absl::StatusOr<PackedRows> packed = PackRows(programs);
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_EQ(packed->cols, 3);
  EXPECT_EQ(packed->programs, 3);
  EXPECT_EQ(packed->program_of_row, std::vector<int>({0, 0, 2}));
  EXPECT_EQ(packed->values.size(), 9u);
  std::vector<float> row_values = {1, 2, 4};
  EXPECT_EQ(SumPerProgram(*packed, row_values), std::vector<double>({3, 0, 4}));
}

TEST(PackRows, RejectsMixedWidthsAndShortValues) {
  std::vector<FeatureMatrix> mixed = {Rows(1, 3, 0), Rows(1, 4, 0)};
  EXPECT_EQ(PackRows(mixed).status().code(), absl::StatusCode::kInvalidArgument);
  FeatureMatrix short_values = Rows(2, 3, 0);
  short_values.values.pop_back();
  std::vector<FeatureMatrix> bad = {short_values};
  EXPECT_EQ(PackRows(bad).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PackSumObjective, GradientIsWeightedProgramResidual) {
  std::vector<FeatureMatrix> programs = {Rows(2, 1, 0), Rows(1, 1, 0)};
  PackedRows packed = *PackRows(programs);
  std::vector<float> scores = {0.25f, 0.5f, 0.125f};  // sums 0.75 and 0.125
  std::vector<float> labels = {1.0f, 0.0f};
  std::vector<float> weights = LabelWeights(labels, 0.05f);
  EXPECT_EQ(weights, std::vector<float>({1.0f, 0.05f}));
  std::vector<float> grad, hess;
  PackSumSquareErrorGradients(packed, scores, labels, weights, &grad, &hess);
  EXPECT_EQ(grad, std::vector<float>({-0.25f, -0.25f, 0.05f * 0.125f}));
  EXPECT_EQ(hess, std::vector<float>({1.0f, 1.0f, 0.05f}));
  double rmse = PackSumWeightedRmse(packed, scores, labels, weights);
  EXPECT_NEAR(rmse, std::sqrt((0.0625 + 0.05 * 0.015625) / 1.05), 1e-7);
}

}  // namespace
}  // namespace tunefarm::tuner
