// One Acquire stream on the server: a callback-API write reactor that is also the request's
// LeaseListener. No thread waits for a grant; events are written as the lease table makes them,
// and a cancelled stream (client closed it or crashed) releases its ticket at once.
#ifndef TUNEFARM_TRACKER_ACQUIRE_REACTOR_H_
#define TUNEFARM_TRACKER_ACQUIRE_REACTOR_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include "proto/tunefarm.pb.h"
#include "proto/write_queue.h"
#include "tracker/lease_table.h"
#include "tracker/tracker_state.h"

namespace tunefarm::tracker {

class AcquireReactor final : public grpc::ServerWriteReactor<v1::AcquireEvent>,
                             public LeaseListener {
 public:
  // Queues the request with `state` and returns the reactor for gRPC. The token must already
  // have been checked.
  static grpc::ServerWriteReactor<v1::AcquireEvent>* Start(TrackerState& state,
                                                           grpc::CallbackServerContext* context,
                                                           const v1::AcquireRequest& request);

  // LeaseListener: record under the tracker's lock, write in Flush.
  void OnQueued(int position, int devices_in_pool) override;
  void OnGranted(const Grant& grant) override;
  void OnRevoked(const std::string& reason) override;
  void Flush() override;

  // gRPC reactions.
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  explicit AcquireReactor(TrackerState& state) : state_(state) {}
  void ReleaseTicket();

  TrackerState& state_;
  // The reactor owns itself until OnDone; the lease table and pending Flush calls hold further
  // references, so a late Flush never touches freed memory.
  std::shared_ptr<AcquireReactor> self_;
  // Events are queued under the tracker's lock and written by Flush, never under it.
  wire::WriteQueue<v1::AcquireEvent> writes_;

  std::mutex mu_;  // guards the two below
  bool cancelled_ = false;
  std::optional<TicketId> ticket_;
};

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_ACQUIRE_REACTOR_H_
