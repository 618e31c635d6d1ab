#include "proto/tracker_client.h"

#include "absl/strings/str_cat.h"
#include "proto/auth.h"
#include "proto/grpc_status.h"

namespace tunefarm::wire {

// ---- Lease ----------------------------------------------------------------------------------

void Lease::Start(v1::Tracker::Stub* stub, const v1::AcquireRequest& request,
                  const std::string& token) {
  request_ = request;
  AddToken(context_, token);
  stub->async()->Acquire(&context_, &request_, this);
  StartRead(&incoming_);
  StartCall();
}

void Lease::OnReadDone(bool ok) {
  if (!ok) return;  // the stream ended; OnDone follows with its status
  {
    std::lock_guard lock(mu_);
    events_.push_back(incoming_);
  }
  cv_.notify_all();
  StartRead(&incoming_);
}

void Lease::OnDone(const grpc::Status& status) {
  // Notify under the lock: the destructor may run the moment done_ is seen.
  std::lock_guard lock(mu_);
  done_ = true;
  final_status_ = status;
  cv_.notify_all();
}

absl::StatusOr<v1::AcquireEvent> Lease::NextEvent(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return !events_.empty() || done_; });
  if (!events_.empty()) {
    v1::AcquireEvent event = std::move(events_.front());
    events_.pop_front();
    return event;
  }
  if (!done_) {
    return absl::DeadlineExceededError(
        absl::StrCat("no acquire event for key '", request_.key(), "' within ", timeout.count(), " ms"));
  }
  if (!final_status_.ok()) {
    // DEADLINE_EXCEEDED above means "no event yet"; a stream that ended with it is over.
    absl::Status ended = ToAbsl(final_status_);
    if (absl::IsDeadlineExceeded(ended)) return absl::UnavailableError(absl::StrCat("acquire stream ended: ", ended.message()));
    return ended;
  }
  return absl::OutOfRangeError("acquire stream ended");
}

absl::StatusOr<v1::AcquireEvent::Granted> Lease::WaitGranted(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    absl::StatusOr<v1::AcquireEvent> event = NextEvent(std::max(left, std::chrono::milliseconds(0)));
    if (!event.ok()) return event.status();
    if (event->has_granted()) return event->granted();
    if (event->has_revoked()) {
      return absl::UnavailableError(absl::StrCat("acquire revoked: ", event->revoked().reason()));
    }
  }
}

void Lease::Release() {
  context_.TryCancel();
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return done_; });
}

Lease::~Lease() { Release(); }

// ---- TrackerClient ---------------------------------------------------------------------------

TrackerClient::TrackerClient(std::shared_ptr<grpc::Channel> channel, std::string token,
                             std::chrono::milliseconds rpc_timeout, bool wait_for_ready)
    : stub_(v1::Tracker::NewStub(channel)),
      token_(std::move(token)),
      rpc_timeout_(rpc_timeout),
      wait_for_ready_(wait_for_ready) {}

void TrackerClient::Prepare(grpc::ClientContext& context) const {
  AddToken(context, token_);
  context.set_deadline(std::chrono::system_clock::now() + rpc_timeout_);
  context.set_wait_for_ready(wait_for_ready_);
}

absl::StatusOr<v1::RegisterReply> TrackerClient::Register(const v1::RegisterRequest& request) {
  grpc::ClientContext context;
  Prepare(context);
  v1::RegisterReply reply;
  grpc::Status status = stub_->Register(&context, request, &reply);
  if (!status.ok()) return ToAbsl(status);
  return reply;
}

absl::Status TrackerClient::Heartbeat(const std::string& agent_id) {
  grpc::ClientContext context;
  Prepare(context);
  v1::HeartbeatRequest request;
  request.set_agent_id(agent_id);
  v1::HeartbeatReply reply;
  return ToAbsl(stub_->Heartbeat(&context, request, &reply));
}

absl::Status TrackerClient::Unregister(const std::string& agent_id) {
  grpc::ClientContext context;
  Prepare(context);
  v1::UnregisterRequest request;
  request.set_agent_id(agent_id);
  v1::UnregisterReply reply;
  return ToAbsl(stub_->Unregister(&context, request, &reply));
}

absl::StatusOr<v1::ListDevicesReply> TrackerClient::ListDevices(const std::string& key) {
  grpc::ClientContext context;
  Prepare(context);
  v1::ListDevicesRequest request;
  request.set_key(key);
  v1::ListDevicesReply reply;
  grpc::Status status = stub_->ListDevices(&context, request, &reply);
  if (!status.ok()) return ToAbsl(status);
  return reply;
}

std::unique_ptr<Lease> TrackerClient::Acquire(const v1::AcquireRequest& request) {
  std::unique_ptr<Lease> lease(new Lease());
  lease->Start(stub_.get(), request, token_);
  return lease;
}

}  // namespace tunefarm::wire
