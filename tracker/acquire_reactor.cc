#include "tracker/acquire_reactor.h"

#include "proto/grpc_status.h"

namespace tunefarm::tracker {

grpc::ServerWriteReactor<v1::AcquireEvent>* AcquireReactor::Start(
    TrackerState& state, grpc::CallbackServerContext* context, const v1::AcquireRequest& request) {
  std::shared_ptr<AcquireReactor> reactor(new AcquireReactor(state));
  reactor->self_ = reactor;
  const std::string client = request.client_name().empty() ? context->peer() : request.client_name();
  absl::StatusOr<TicketId> ticket = state.Acquire(request, client, reactor);
  if (!ticket.ok()) {
    reactor->RequestFinish(wire::ToGrpc(ticket.status()), /*drop_pending=*/true);
    reactor->Pump();
    return reactor.get();
  }
  bool cancelled = false;
  {
    std::lock_guard lock(reactor->mu_);
    reactor->ticket_ = *ticket;
    cancelled = reactor->cancelled_;
  }
  // OnCancel may have run before the ticket was stored; release on its behalf.
  if (cancelled) reactor->ReleaseTicket();
  return reactor.get();
}

void AcquireReactor::OnQueued(int position, int devices_in_pool) {
  v1::AcquireEvent event;
  event.mutable_queued()->set_position(position);
  event.mutable_queued()->set_devices_in_pool(devices_in_pool);
  std::lock_guard lock(mu_);
  pending_.push_back(std::move(event));
}

void AcquireReactor::OnGranted(const Grant& grant) {
  v1::AcquireEvent event;
  v1::AcquireEvent::Granted* g = event.mutable_granted();
  g->set_device_address(grant.address);
  g->set_device_key(grant.key);
  g->set_agent_id(grant.agent_id);
  g->set_lease_id(grant.lease_id);
  std::lock_guard lock(mu_);
  pending_.push_back(std::move(event));
}

void AcquireReactor::OnRevoked(const std::string& reason) {
  v1::AcquireEvent event;
  event.mutable_revoked()->set_reason(reason);
  std::lock_guard lock(mu_);
  pending_.push_back(std::move(event));
  ticket_.reset();  // the table has forgotten it
  if (!finish_wanted_) {
    finish_wanted_ = true;
    finish_status_ = grpc::Status::OK;
  }
}

void AcquireReactor::Flush() { Pump(); }

void AcquireReactor::RequestFinish(grpc::Status status, bool drop_pending) {
  std::lock_guard lock(mu_);
  if (drop_pending) pending_.clear();
  if (finish_wanted_) return;
  finish_wanted_ = true;
  finish_status_ = std::move(status);
}

void AcquireReactor::Pump() {
  std::unique_lock lock(mu_);
  if (finished_ || writing_) return;
  if (!pending_.empty()) {
    in_flight_ = std::move(pending_.front());
    pending_.pop_front();
    writing_ = true;
    lock.unlock();
    StartWrite(&in_flight_);
    return;
  }
  if (finish_wanted_) {
    finished_ = true;
    grpc::Status status = finish_status_;
    lock.unlock();
    Finish(std::move(status));
  }
}

void AcquireReactor::ReleaseTicket() {
  std::optional<TicketId> ticket;
  {
    std::lock_guard lock(mu_);
    ticket = std::exchange(ticket_, std::nullopt);
  }
  if (ticket) state_.Release(*ticket);
}

void AcquireReactor::OnWriteDone(bool ok) {
  {
    std::lock_guard lock(mu_);
    writing_ = false;
  }
  if (!ok) {
    // The client is gone: free what it held now, not when the stream is torn down.
    ReleaseTicket();
    RequestFinish(grpc::Status(grpc::StatusCode::CANCELLED, "client went away"), true);
  }
  Pump();
}

void AcquireReactor::OnCancel() {
  {
    std::lock_guard lock(mu_);
    cancelled_ = true;
  }
  ReleaseTicket();
  RequestFinish(grpc::Status(grpc::StatusCode::CANCELLED, "acquire stream closed"), true);
  Pump();
}

void AcquireReactor::OnDone() {
  ReleaseTicket();
  std::shared_ptr<AcquireReactor> last = std::move(self_);  // may delete this on return
}

}  // namespace tunefarm::tracker
