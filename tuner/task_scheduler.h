// Which task of a job to tune next: Ansor's gradient-based task scheduler.
//
// The job minimises the estimated model latency, the sum over tasks of weight x best cost (a
// task's weight is how many times the model calls its kernel). Every task first gets one round
// (the warm-up). After that each round goes to the task whose next round is expected to lower
// the estimated latency the most, judged by the gradient
//
//   grad_i = weight_i * (alpha * backward_i + (1 - alpha) * forward_i)
//
//   backward_i  how the task's best cost moved over its last `window` rounds, per round;
//   forward_i   the optimistic guess for its next round: best - best / rounds (tasks improve
//               less and less), bounded by what a similar task reaches (tasks with the same
//               tag and known flops: beta x flops_i / best GFLOP/s of the group), minus best.
//
// The most negative gradient wins; ties are broken at random (seeded). A task stops being
// scheduled when it ran `early_stop_rounds` rounds without improving, when its candidates ran
// out (MarkExhausted), or when it found no valid program in its first `max_failed_rounds`.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tunefarm::tuner {

struct SchedulerTask {
  double weight = 1;
  double flops = 0;  // of one call; 0: unknown (no similarity bound)
  std::string tag;   // tasks with the same non-empty tag are "similar"
};

struct TaskSchedulerOptions {
  double alpha = 0.2;
  double beta = 2;
  int window = 3;
  int early_stop_rounds = 8;  // 0: never stop a task for not improving
  int max_failed_rounds = 3;
  uint64_t seed = 0;
};

class GradientTaskScheduler {
 public:
  GradientTaskScheduler(std::vector<SchedulerTask> tasks, TaskSchedulerOptions options = {});

  // The task to tune next, or -1 when every task has stopped.
  int NextTask();
  // The task most likely to come after a round of `after` other than `after` itself, judged
  // now (before that round's result): the next task of the warm-up, else the one of lowest
  // gradient (lowest index on ties; no random draw). -1 when there is none. For searching a
  // round ahead (batch_prefetch.h).
  int LikelyNextBesides(int after) const;
  // The end of a round of `task`: its best cost so far (seconds; 0 or less: none valid yet).
  void Record(int task, double best_cost);
  // The task's candidates ran out: it is never scheduled again.
  void MarkExhausted(int task);

  // Sum of weight x best cost over the tasks that have a valid program; `complete` (optional)
  // says whether every task has one.
  double EstimatedLatency(bool* complete = nullptr) const;
  int rounds(int task) const { return static_cast<int>(history_[task].size()); }
  bool stopped(int task) const { return stopped_[task]; }
  // The gradient NextTask judged `task` by at its last call (0 during warm-up); for logs.
  double last_gradient(int task) const { return gradient_[task]; }

 private:
  // The tasks NextTask picks among, `except` left out (-1: none): the next of the warm-up alone,
  // else those of lowest gradient (each judged task's gradient goes to `gradients`, if given).
  struct Choice {
    bool warm_up = false;
    std::vector<int> tasks;
  };
  Choice Choose(int except, std::vector<double>* gradients) const;
  double Gradient(int task) const;
  double Best(int task) const;  // kNoCost when none valid

  std::vector<SchedulerTask> tasks_;
  TaskSchedulerOptions options_;
  std::vector<std::vector<double>> history_;  // best cost after each round (kNoCost: none)
  std::vector<int> rounds_since_improved_;
  std::vector<bool> stopped_;
  std::vector<double> gradient_;
  std::mt19937_64 rng_;
};

// How many programs a round measures: `per_round`, within the `left` of the job's trial `budget`.
// A task's first round (warm-up) is at most budget / (2 x tasks), so that the warm-up rounds
// together take at most half of the budget and the other half goes where the gradient says it
// pays, and at most its share of `left` among the `unwarmed` tasks (a resumed job with little
// left still gives every task its first round). Never below 1. (Sharing all of the budget,
// mobilenet_v2's 33 tasks took 768 trials in 33 equal rounds, the 1 ms expand convs no more
// than a 10 us one.)
int64_t RoundSize(int64_t per_round, int64_t budget, int64_t left, bool warm_up, int64_t tasks, int64_t unwarmed);

}  // namespace tunefarm::tuner
