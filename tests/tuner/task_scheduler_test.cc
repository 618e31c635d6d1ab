// The gradient task scheduler, driven by recorded tuning curves (best cost after each round).
#include "tuner/task_scheduler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace tunefarm::tuner {
namespace {

// A task's best cost after its r-th round: curve[min(r, size - 1)].
using Curve = std::vector<double>;

// Runs `rounds` scheduling decisions; returns the rounds each task got.
std::vector<int> Simulate(GradientTaskScheduler& scheduler, const std::vector<Curve>& curves, int rounds) {
  std::vector<int> got(curves.size(), 0);
  for (int r = 0; r < rounds; ++r) {
    const int t = scheduler.NextTask();
    if (t < 0) break;
    const Curve& c = curves[t];
    scheduler.Record(t, c[std::min<size_t>(got[t], c.size() - 1)]);
    ++got[t];
  }
  return got;
}

// Improves by a fifth each round for a while: a task with room left.
Curve Steep() {
  Curve c;
  double v = 10e-3;
  for (int i = 0; i < 20; ++i, v *= 0.8) c.push_back(v);
  return c;
}

TEST(TaskScheduler, WarmUpGivesEveryTaskOneRoundInOrder) {
  GradientTaskScheduler s({{1, 0, ""}, {1, 0, ""}, {1, 0, ""}});
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(s.NextTask(), t);
    s.Record(t, 1e-3);
  }
  EXPECT_EQ(s.rounds(0), 1);
  EXPECT_EQ(s.rounds(2), 1);
}

// The guess for searching a round ahead: the next task of the warm-up, then the task of lowest
// gradient among the others, which is what NextTask picks when the excluded task is not it.
TEST(TaskScheduler, LikelyNextBesidesFollowsTheWarmUpThenTheGradient) {
  TaskSchedulerOptions options;
  options.early_stop_rounds = 0;
  GradientTaskScheduler s({{1, 0, ""}, {1, 0, ""}, {4, 0, ""}}, options);
  EXPECT_EQ(s.LikelyNextBesides(0), 1);
  EXPECT_EQ(s.LikelyNextBesides(1), 0);
  for (int t = 0; t < 3; ++t) s.Record(s.NextTask(), 1e-3);
  // Task 2 weighs four times as much on an equal curve: its gradient is the lowest.
  for (int round = 0; round < 3; ++round) {
    for (int t = 0; t < 3; ++t) s.Record(t, 1e-3 * std::pow(0.9, round + 1));
  }
  EXPECT_EQ(s.LikelyNextBesides(0), 2);
  EXPECT_EQ(s.LikelyNextBesides(1), 2);
  EXPECT_EQ(s.NextTask(), 2);
  EXPECT_NE(s.LikelyNextBesides(2), 2);
  EXPECT_GE(s.LikelyNextBesides(2), 0);
}

// The gradient weighs what a task costs and how fast it improves: a costly task that keeps
// improving gets more rounds than a cheap one that does not.
TEST(TaskScheduler, TheCostlyImprovingTaskGetsMoreRounds) {
  TaskSchedulerOptions options;
  options.early_stop_rounds = 0;
  GradientTaskScheduler s({{1, 0, ""}, {1, 0, ""}}, options);
  Curve improving;
  for (int i = 0; i < 40; ++i) improving.push_back(20e-3 * std::pow(0.97, i));
  std::vector<int> got = Simulate(s, {Curve(40, 5e-3), improving}, 24);
  EXPECT_GT(got[1], 2 * got[0]) << got[0] << " vs " << got[1];
}

TEST(TaskScheduler, TheHeavierTaskGetsMoreRoundsOnEqualCurves) {
  TaskSchedulerOptions options;
  options.early_stop_rounds = 0;
  GradientTaskScheduler s({{1, 0, ""}, {12, 0, ""}}, options);
  std::vector<int> got = Simulate(s, {Steep(), Steep()}, 20);
  EXPECT_GT(got[1], got[0]) << got[0] << " vs " << got[1];
}

TEST(TaskScheduler, EstimatedLatencyIsTheWeightedSumOfBests) {
  GradientTaskScheduler s({{2, 0, ""}, {3, 0, ""}});
  bool complete = true;
  EXPECT_EQ(s.EstimatedLatency(&complete), 0);
  EXPECT_FALSE(complete);
  s.Record(0, 1e-3);
  s.Record(1, 0);  // no valid program yet
  EXPECT_DOUBLE_EQ(s.EstimatedLatency(&complete), 2e-3);
  EXPECT_FALSE(complete);
  s.Record(1, 2e-3);
  s.Record(0, 4e-3);  // worse than before: the best stays
  EXPECT_DOUBLE_EQ(s.EstimatedLatency(&complete), 2e-3 + 6e-3);
  EXPECT_TRUE(complete);
}

TEST(TaskScheduler, ATaskThatStopsImprovingStops) {
  TaskSchedulerOptions options;
  options.early_stop_rounds = 3;
  GradientTaskScheduler s({{1, 0, ""}, {1, 0, ""}}, options);
  const Curve constant(30, 5e-3);
  std::vector<int> got = Simulate(s, {constant, Steep()}, 40);
  EXPECT_TRUE(s.stopped(0));
  EXPECT_EQ(got[0], 4);  // the first round sets the best, three more without improvement
  // Once every task stopped there is nothing to schedule.
  for (int i = 0; i < 100 && s.NextTask() >= 0;) {
    const int t = s.NextTask();
    s.Record(t, 5e-3);
    ++i;
  }
  EXPECT_EQ(s.NextTask(), -1);
}

TEST(TaskScheduler, ExhaustedAndFailingTasksAreNotScheduled) {
  TaskSchedulerOptions options;
  options.max_failed_rounds = 2;
  options.early_stop_rounds = 0;
  GradientTaskScheduler s({{1, 0, ""}, {1, 0, ""}, {1, 0, ""}}, options);
  s.MarkExhausted(0);
  std::vector<int> got = Simulate(s, {Steep(), Curve{0}, Steep()}, 10);
  EXPECT_EQ(got[0], 0);
  EXPECT_EQ(got[1], 2);  // no valid program in two rounds: stopped
  EXPECT_EQ(got[2], 8);
}

TEST(TaskScheduler, ASimilarFastTaskPullsASlowOneUp) {
  // Two tasks of the same kind and flops; task 1 is stuck 4x slower than task 0 reached. The
  // similarity bound says task 1 could get much faster, so it is preferred over an unrelated
  // task with the same curve that has no peer.
  TaskSchedulerOptions options;
  options.early_stop_rounds = 0;
  GradientTaskScheduler s({{1, 1e9, "conv"}, {1, 1e9, "conv"}, {1, 1e9, ""}}, options);
  for (int r = 0; r < 4; ++r) {  // past the warm-up and the backward window: all flat
    s.Record(0, 1e-3);
    s.Record(1, 4e-3);
    s.Record(2, 4e-3);
  }
  EXPECT_EQ(s.NextTask(), 1);
  EXPECT_LT(s.last_gradient(1), s.last_gradient(2));
}

// The warm-up takes at most half of the budget, in equal shares; the rest goes in full rounds.
TEST(RoundSize, WarmUpRoundsLeaveHalfTheBudgetToTheGradient) {
  const int64_t per_round = 32, budget = 768, tasks = 33;
  int64_t left = budget, warm_up_trials = 0;
  for (int64_t unwarmed = tasks; unwarmed > 0; --unwarmed) {
    const int64_t size = RoundSize(per_round, budget, left, true, tasks, unwarmed);
    EXPECT_EQ(size, 12) << "budget / (2 tasks), rounded up";
    warm_up_trials += size;
    left -= size;
  }
  EXPECT_LE(warm_up_trials, budget / 2 + tasks);
  EXPECT_EQ(RoundSize(per_round, budget, left, false, tasks, 0), per_round) << "after the warm-up: full rounds";
  // With a big budget the warm-up round is a full one.
  EXPECT_EQ(RoundSize(per_round, 100000, 100000, true, tasks, tasks), per_round);
}

TEST(RoundSize, EveryTaskGetsAFirstRoundWithinWhatIsLeft) {
  // A resumed job with 10 trials left and 8 tasks still to warm up: 2, then 1 each, never 0.
  EXPECT_EQ(RoundSize(64, 1000, 10, true, 20, 8), 2);
  EXPECT_EQ(RoundSize(64, 1000, 1, true, 20, 8), 1);
  EXPECT_EQ(RoundSize(64, 1000, 5, false, 20, 0), 5) << "no round past the budget";
  EXPECT_EQ(RoundSize(64, 1000, 0, false, 20, 0), 1);
}

}  // namespace
}  // namespace tunefarm::tuner
