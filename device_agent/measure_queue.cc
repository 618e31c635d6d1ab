#include "device_agent/measure_queue.h"

namespace tunefarm::agent {

MeasureQueue::MeasureQueue() : worker_([this] { Work(); }) {}

MeasureQueue::~MeasureQueue() { Stop(); }

void MeasureQueue::Push(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void MeasureQueue::Stop() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    dropped.swap(jobs_);
  }
  cv_.notify_all();
  if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id()) worker_.join();
  // `dropped` dies here, outside the lock: a job's captures may run destructors that push.
}

bool MeasureQueue::busy() const {
  std::lock_guard lock(mu_);
  return running_job_;
}

size_t MeasureQueue::waiting() const {
  std::lock_guard lock(mu_);
  return jobs_.size();
}

void MeasureQueue::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    running_job_ = true;
    lock.unlock();
    job();
    job = nullptr;  // release its captures before taking the lock again
    lock.lock();
    running_job_ = false;
  }
}

}  // namespace tunefarm::agent
