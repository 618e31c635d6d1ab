// The server side of one Measure stream (callback API). Each candidate becomes a job on the
// device's MeasureQueue; each result is written as soon as its job ends, and the stream ends
// with OK after the last one. A cancelled call (client gone, server stopping) kills the
// measurement in flight and skips the rest.
#ifndef TUNEFARM_DEVICE_AGENT_MEASURE_REACTOR_H_
#define TUNEFARM_DEVICE_AGENT_MEASURE_REACTOR_H_

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>

#include <grpcpp/support/server_callback.h>

#include "device_agent/measure_queue.h"
#include "device_agent/measure_runner.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::agent {

// InvalidArgument naming the field at fault, for a request that cannot be measured.
absl::Status ValidateMeasureRequest(const v1::MeasureRequest& request);

class MeasureReactor final : public grpc::ServerWriteReactor<v1::MeasureResult> {
 public:
  // Validates and queues the request. The token must already have been checked.
  static grpc::ServerWriteReactor<v1::MeasureResult>* Start(MeasureQueue& queue,
                                                            MeasureRunner& runner,
                                                            const v1::MeasureRequest& request);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  MeasureReactor() = default;
  void RunCandidate(MeasureRunner& runner, const v1::Candidate& candidate);  // worker thread
  void Deliver(v1::MeasureResult result);
  // Ends the stream with `status` after the results already queued.
  void RequestFinish(grpc::Status status);
  // Starts the next write, or the Finish, when nothing is in flight.
  void Pump();

  // Owns itself until OnDone; queued jobs hold further references, so a job that ends after
  // the call never touches freed memory.
  std::shared_ptr<MeasureReactor> self_;
  v1::MeasureRequest request_;
  std::atomic<bool> cancelled_{false};  // read by the helper wait loop

  std::mutex mu_;
  std::deque<v1::MeasureResult> pending_;
  v1::MeasureResult in_flight_;
  int remaining_ = 0;  // candidates without a result yet
  bool writing_ = false;
  bool finish_wanted_ = false;
  bool finished_ = false;
  grpc::Status finish_status_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_MEASURE_REACTOR_H_
