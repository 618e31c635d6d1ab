#include "tuner/task_scheduler.h"

#include <algorithm>
#include <limits>

namespace tunefarm::tuner {
namespace {

// A task without a valid program counts as this slow, as in Ansor: its gradient is then huge,
// so it is tried again until it finds one or max_failed_rounds stop it.
constexpr double kNoCost = 1e10;

}  // namespace

GradientTaskScheduler::GradientTaskScheduler(std::vector<SchedulerTask> tasks, TaskSchedulerOptions options)
    : tasks_(std::move(tasks)),
      options_(options),
      history_(tasks_.size()),
      rounds_since_improved_(tasks_.size(), 0),
      stopped_(tasks_.size(), false),
      gradient_(tasks_.size(), 0),
      rng_(options.seed) {}

double GradientTaskScheduler::Best(int task) const { return history_[task].empty() ? kNoCost : history_[task].back(); }

void GradientTaskScheduler::Record(int task, double best_cost) {
  const double best = best_cost > 0 ? best_cost : kNoCost;
  std::vector<double>& h = history_[task];
  const bool improved = h.empty() ? best < kNoCost : best < h.back();
  rounds_since_improved_[task] = improved ? 0 : rounds_since_improved_[task] + 1;
  h.push_back(h.empty() ? best : std::min(best, h.back()));
  if (options_.early_stop_rounds > 0 && rounds_since_improved_[task] >= options_.early_stop_rounds)
    stopped_[task] = true;
  if (h.back() >= kNoCost && static_cast<int>(h.size()) >= options_.max_failed_rounds) stopped_[task] = true;
}

void GradientTaskScheduler::MarkExhausted(int task) { stopped_[task] = true; }

double GradientTaskScheduler::Gradient(int i) const {
  const std::vector<double>& h = history_[i];
  const int n = static_cast<int>(h.size());
  const double best = Best(i);
  // d(latency)/d(best_i): the objective is a weighted sum.
  const double chain = tasks_[i].weight;
  const double backward = n > options_.window ? (h[n - 1] - h[n - 1 - options_.window]) / options_.window : 0;
  double next = best - best / n;
  if (!tasks_[i].tag.empty() && tasks_[i].flops > 0) {
    // What the best similar task's speed would give this one, times beta.
    double best_flops_per_sec = 0;
    for (size_t j = 0; j < tasks_.size(); ++j) {
      if (tasks_[j].tag != tasks_[i].tag || tasks_[j].flops <= 0 || Best(j) >= kNoCost) continue;
      best_flops_per_sec = std::max(best_flops_per_sec, tasks_[j].flops / Best(static_cast<int>(j)));
    }
    if (best_flops_per_sec > 0) next = std::min(next, options_.beta * tasks_[i].flops / best_flops_per_sec);
  }
  const double forward = next - best;
  return chain * (options_.alpha * backward + (1 - options_.alpha) * forward);
}

GradientTaskScheduler::Choice GradientTaskScheduler::Choose(int except, std::vector<double>* gradients) const {
  // Warm-up: every task once, in order.
  for (size_t i = 0; i < tasks_.size(); ++i)
    if (static_cast<int>(i) != except && !stopped_[i] && history_[i].empty()) return {true, {static_cast<int>(i)}};
  Choice choice;
  double lowest = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (static_cast<int>(i) == except || stopped_[i]) continue;
    const double g = Gradient(static_cast<int>(i));
    if (gradients != nullptr) (*gradients)[i] = g;
    if (g < lowest) {
      lowest = g;
      choice.tasks.assign(1, static_cast<int>(i));
    } else if (g == lowest) {
      choice.tasks.push_back(static_cast<int>(i));
    }
  }
  return choice;
}

int GradientTaskScheduler::NextTask() {
  const Choice choice = Choose(-1, &gradient_);
  if (choice.tasks.empty()) return -1;
  if (choice.warm_up) return choice.tasks[0];
  return choice.tasks[rng_() % choice.tasks.size()];
}

int GradientTaskScheduler::LikelyNextBesides(int after) const {
  const Choice choice = Choose(after, nullptr);
  return choice.tasks.empty() ? -1 : choice.tasks[0];
}

double GradientTaskScheduler::EstimatedLatency(bool* complete) const {
  double total = 0;
  bool all = true;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    const double best = Best(static_cast<int>(i));
    if (best >= kNoCost) {
      all = false;
      continue;
    }
    total += tasks_[i].weight * best;
  }
  if (complete != nullptr) *complete = all;
  return total;
}

int64_t RoundSize(int64_t per_round, int64_t budget, int64_t left, bool warm_up, int64_t tasks, int64_t unwarmed) {
  int64_t size = std::min(per_round, left);
  if (warm_up) {
    tasks = std::max<int64_t>(1, tasks);
    unwarmed = std::max<int64_t>(1, unwarmed);
    const int64_t half = (budget + 1) / 2;
    size = std::min({size, (half + tasks - 1) / tasks, (left + unwarmed - 1) / unwarmed});
  }
  return std::max<int64_t>(size, 1);
}

}  // namespace tunefarm::tuner
