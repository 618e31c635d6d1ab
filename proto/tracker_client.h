// Client side of the Tracker service: typed calls that add the token, and a Lease that holds
// one Acquire stream open.
#ifndef TUNEFARM_PROTO_TRACKER_CLIENT_H_
#define TUNEFARM_PROTO_TRACKER_CLIENT_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/tunefarm.grpc.pb.h"

namespace tunefarm::wire {

// One Acquire stream. The device stays leased while this object lives: Release() (or the
// destructor) closes the stream, which frees the device or drops the queued request.
class Lease final : public grpc::ClientReadReactor<v1::AcquireEvent> {
 public:
  ~Lease() override;
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  // The next event, waiting at most `timeout`. DeadlineExceeded when none came; once the
  // stream has ended and every event was taken: the stream's error, or OutOfRange when the
  // tracker ended it normally (after REVOKED).
  absl::StatusOr<v1::AcquireEvent> NextEvent(std::chrono::milliseconds timeout);

  // Skips QUEUED events until GRANTED. A REVOKED before the grant (tracker stopping) comes back
  // as Unavailable with the tracker's reason.
  absl::StatusOr<v1::AcquireEvent::Granted> WaitGranted(std::chrono::milliseconds timeout);

  // Closes the stream and waits until gRPC has finished with it. Idempotent.
  void Release();

 private:
  friend class TrackerClient;
  Lease() = default;
  void Start(v1::Tracker::Stub* stub, const v1::AcquireRequest& request, const std::string& token);

  void OnReadDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

  grpc::ClientContext context_;
  v1::AcquireRequest request_;
  v1::AcquireEvent incoming_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<v1::AcquireEvent> events_;
  bool done_ = false;
  grpc::Status final_status_;
};

class TrackerClient {
 public:
  // `rpc_timeout` bounds each unary call (not Acquire streams, which last as long as a lease).
  // With `wait_for_ready`, a unary call waits (up to rpc_timeout) for an unreachable tracker to
  // come back instead of failing at once. Long-lived callers such as agents want it: the
  // waiting call is also what drives a sync client's reconnection (else gRPC only retries on
  // its 5 s backup poll).
  TrackerClient(std::shared_ptr<grpc::Channel> channel, std::string token,
                std::chrono::milliseconds rpc_timeout = std::chrono::seconds(5),
                bool wait_for_ready = false);

  absl::StatusOr<v1::RegisterReply> Register(const v1::RegisterRequest& request);
  absl::Status Heartbeat(const std::string& agent_id);
  absl::Status Unregister(const std::string& agent_id);
  absl::StatusOr<v1::ListDevicesReply> ListDevices(const std::string& key = "");

  // Opens an Acquire stream at once; the call itself never blocks. Errors (bad token, tracker
  // down) arrive through the Lease.
  std::unique_ptr<Lease> Acquire(const v1::AcquireRequest& request);

  v1::Tracker::Stub& stub() { return *stub_; }

 private:
  void Prepare(grpc::ClientContext& context) const;

  std::unique_ptr<v1::Tracker::Stub> stub_;
  std::string token_;
  std::chrono::milliseconds rpc_timeout_;
  bool wait_for_ready_;
};

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_TRACKER_CLIENT_H_
