// The server side of one Measure stream (callback API). The call becomes one job on the
// device's MeasureQueue, measured in one helper process as long as isolation allows; each
// result is written as soon as its candidate is measured, and the stream ends with OK after
// the last one. A cancelled call (client gone, server stopping) kills the measurement in
// flight and skips the rest.
#ifndef TUNEFARM_DEVICE_AGENT_MEASURE_REACTOR_H_
#define TUNEFARM_DEVICE_AGENT_MEASURE_REACTOR_H_

#include <atomic>
#include <memory>

#include <grpcpp/support/server_callback.h>

#include "device_agent/measure_queue.h"
#include "device_agent/measure_runner.h"
#include "proto/tunefarm.pb.h"
#include "proto/write_queue.h"

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
  void Run(MeasureRunner& runner);  // on the queue's worker thread
  void Deliver(v1::MeasureResult result);
  // Ends the stream with `status` after the results already queued (before them with
  // `drop_pending`); the candidates not measured yet are skipped.
  void RequestFinish(grpc::Status status, bool drop_pending = false);

  // Owns itself until OnDone; the queued job holds a further reference, so a job that ends
  // after the call never touches freed memory.
  std::shared_ptr<MeasureReactor> self_;
  v1::MeasureRequest request_;
  std::atomic<bool> cancelled_{false};  // read by the helper wait loop
  int remaining_ = 0;  // candidates without a result yet; the worker thread's alone
  wire::WriteQueue<v1::MeasureResult> writes_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_MEASURE_REACTOR_H_
