#include "tracker/tracker_service.h"

#include "proto/auth.h"
#include "proto/grpc_status.h"
#include "tracker/acquire_reactor.h"

namespace tunefarm::tracker {
namespace {

// Every unary handler is quick (one locked table update), so it finishes inline.
grpc::ServerUnaryReactor* Finished(grpc::CallbackServerContext* context, grpc::Status status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(std::move(status));
  return reactor;
}

// An Acquire stream refused before it started: only the status goes out.
class RefusedAcquire final : public grpc::ServerWriteReactor<v1::AcquireEvent> {
 public:
  explicit RefusedAcquire(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

TrackerService::TrackerService(TrackerState& state, std::string token)
    : state_(state), token_(std::move(token)) {}

grpc::ServerUnaryReactor* TrackerService::Register(grpc::CallbackServerContext* context,
                                                   const v1::RegisterRequest* request,
                                                   v1::RegisterReply* reply) {
  if (grpc::Status denied = wire::CheckToken(*context, token_); !denied.ok()) {
    return Finished(context, denied);
  }
  absl::StatusOr<v1::RegisterReply> result = state_.Register(*request);
  if (result.ok()) *reply = std::move(*result);
  return Finished(context, wire::ToGrpc(result.status()));
}

grpc::ServerUnaryReactor* TrackerService::Heartbeat(grpc::CallbackServerContext* context,
                                                    const v1::HeartbeatRequest* request,
                                                    v1::HeartbeatReply* /*reply*/) {
  if (grpc::Status denied = wire::CheckToken(*context, token_); !denied.ok()) {
    return Finished(context, denied);
  }
  return Finished(context, wire::ToGrpc(state_.Heartbeat(request->agent_id())));
}

grpc::ServerUnaryReactor* TrackerService::Unregister(grpc::CallbackServerContext* context,
                                                     const v1::UnregisterRequest* request,
                                                     v1::UnregisterReply* /*reply*/) {
  if (grpc::Status denied = wire::CheckToken(*context, token_); !denied.ok()) {
    return Finished(context, denied);
  }
  return Finished(context, wire::ToGrpc(state_.Unregister(request->agent_id())));
}

grpc::ServerWriteReactor<v1::AcquireEvent>* TrackerService::Acquire(
    grpc::CallbackServerContext* context, const v1::AcquireRequest* request) {
  if (grpc::Status denied = wire::CheckToken(*context, token_); !denied.ok()) {
    return new RefusedAcquire(denied);
  }
  return AcquireReactor::Start(state_, context, *request);
}

grpc::ServerUnaryReactor* TrackerService::ListDevices(grpc::CallbackServerContext* context,
                                                      const v1::ListDevicesRequest* request,
                                                      v1::ListDevicesReply* reply) {
  if (grpc::Status denied = wire::CheckToken(*context, token_); !denied.ok()) {
    return Finished(context, denied);
  }
  *reply = state_.ListDevices(request->key());
  return Finished(context, grpc::Status::OK);
}

}  // namespace tunefarm::tracker
