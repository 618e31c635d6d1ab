#include "tuner/batch_prefetch.h"

#include "tuner/tuning_profile.h"

namespace tunefarm::tuner {

void BatchPrefetch::Start(int task, SearchPolicy* policy, int n, const std::set<std::string>* measured) {
  if (thread_.joinable() || batches_.count(task) > 0) return;
  running_task_ = task;
  ++started_;
  thread_ = std::thread([this, policy, n, measured] {
    StageTimer timer(TuningStage::kSampleReplay);
    running_batch_ = policy->NextBatch(n, *measured);
  });
}

void BatchPrefetch::Wait() {
  if (!thread_.joinable()) return;
  thread_.join();
  batches_[running_task_] = std::move(running_batch_);
  running_batch_.clear();
  running_task_ = -1;
}

std::optional<std::vector<Candidate>> BatchPrefetch::Take(int task) {
  if (running_task_ == task) Wait();
  auto it = batches_.find(task);
  if (it == batches_.end()) return std::nullopt;
  std::vector<Candidate> batch = std::move(it->second);
  batches_.erase(it);
  return batch;
}

}  // namespace tunefarm::tuner
