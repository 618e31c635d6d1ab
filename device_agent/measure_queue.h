// One measurement at a time per device: concurrent measurements would disturb each other's
// timings. Jobs run on a single worker thread in the order they were pushed (FIFO), so 200
// concurrent Measure calls are served one candidate after another, first come first served,
// and no gRPC thread ever blocks on a measurement.
#ifndef TUNEFARM_DEVICE_AGENT_MEASURE_QUEUE_H_
#define TUNEFARM_DEVICE_AGENT_MEASURE_QUEUE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace tunefarm::agent {

class MeasureQueue {
 public:
  MeasureQueue();
  ~MeasureQueue();  // Stop()
  MeasureQueue(const MeasureQueue&) = delete;
  MeasureQueue& operator=(const MeasureQueue&) = delete;

  // Runs `job` after every job pushed before it. Ignored after Stop().
  void Push(std::function<void()> job);

  // Drops the jobs not yet started, waits for the running one, ends the worker. Idempotent.
  void Stop();

  bool busy() const;       // a job is running now
  size_t waiting() const;  // jobs not yet started

 private:
  void Work();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool running_job_ = false;
  bool stopping_ = false;
  std::thread worker_;  // last: started once the rest exists
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_MEASURE_QUEUE_H_
