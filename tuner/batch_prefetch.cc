#include "tuner/batch_prefetch.h"

#include "tuner/tuning_profile.h"

namespace tunefarm::tuner {

void BatchPrefetch::Start(int task, int round, SearchPolicy* policy, int n, const std::set<std::string>* measured) {
  if (thread_.joinable() || batches_.count(task) > 0) return;
  running_task_ = task;
  running_.round = round;
  ++started_;
  thread_ = std::thread([this, policy, n, measured] {
    StageTimer timer(TuningStage::kSampleReplay);
    running_.batch = policy->NextBatch(n, *measured);
  });
}

void BatchPrefetch::Wait() {
  if (!thread_.joinable()) return;
  thread_.join();
  batches_[running_task_] = std::move(running_);
  running_ = Held();
  running_task_ = -1;
}

std::optional<std::vector<Candidate>> BatchPrefetch::Take(int task, int round) {
  if (running_task_ == task) Wait();
  auto it = batches_.find(task);
  if (it == batches_.end()) return std::nullopt;
  Held held = std::move(it->second);
  batches_.erase(it);
  if (round - held.round > kMaxAgeRounds) return std::nullopt;
  return std::move(held.batch);
}

}  // namespace tunefarm::tuner
