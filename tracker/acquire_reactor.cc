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
    reactor->writes_.RequestFinish(wire::ToGrpc(ticket.status()), /*drop_pending=*/true);
    reactor->writes_.Pump(reactor.get());
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
  writes_.Push(std::move(event));
}

void AcquireReactor::OnGranted(const Grant& grant) {
  v1::AcquireEvent event;
  v1::AcquireEvent::Granted* g = event.mutable_granted();
  g->set_device_address(grant.address);
  g->set_device_key(grant.key);
  g->set_agent_id(grant.agent_id);
  g->set_lease_id(grant.lease_id);
  writes_.Push(std::move(event));
}

void AcquireReactor::OnRevoked(const std::string& reason) {
  v1::AcquireEvent event;
  event.mutable_revoked()->set_reason(reason);
  writes_.Push(std::move(event));
  writes_.RequestFinish(grpc::Status::OK);  // REVOKED is the last event
  std::lock_guard lock(mu_);
  ticket_.reset();  // the table has forgotten it
}

void AcquireReactor::Flush() { writes_.Pump(this); }

void AcquireReactor::ReleaseTicket() {
  std::optional<TicketId> ticket;
  {
    std::lock_guard lock(mu_);
    ticket = std::exchange(ticket_, std::nullopt);
  }
  if (ticket) state_.Release(*ticket);
}

void AcquireReactor::OnWriteDone(bool ok) {
  writes_.WriteDone();
  if (!ok) {
    // The client is gone: free what it held now, not when the stream is torn down.
    ReleaseTicket();
    writes_.RequestFinish(grpc::Status(grpc::StatusCode::CANCELLED, "client went away"), true);
  }
  writes_.Pump(this);
}

void AcquireReactor::OnCancel() {
  {
    std::lock_guard lock(mu_);
    cancelled_ = true;
  }
  ReleaseTicket();
  writes_.RequestFinish(grpc::Status(grpc::StatusCode::CANCELLED, "acquire stream closed"), true);
  writes_.Pump(this);
}

void AcquireReactor::OnDone() {
  ReleaseTicket();
  std::shared_ptr<AcquireReactor> last = std::move(self_);  // may delete this on return
}

}  // namespace tunefarm::tracker
