#include "tracker/tracker_service.h"

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

}  // namespace

TrackerService::TrackerService(TrackerState& state) : state_(state) {}

grpc::ServerUnaryReactor* TrackerService::Register(grpc::CallbackServerContext* context,
                                                   const v1::RegisterRequest* request,
                                                   v1::RegisterReply* reply) {
  absl::StatusOr<v1::RegisterReply> result = state_.Register(*request);
  if (result.ok()) *reply = std::move(*result);
  return Finished(context, wire::ToGrpc(result.status()));
}

grpc::ServerUnaryReactor* TrackerService::Heartbeat(grpc::CallbackServerContext* context,
                                                    const v1::HeartbeatRequest* request,
                                                    v1::HeartbeatReply* /*reply*/) {
  return Finished(context, wire::ToGrpc(state_.Heartbeat(request->agent_id())));
}

grpc::ServerUnaryReactor* TrackerService::Unregister(grpc::CallbackServerContext* context,
                                                     const v1::UnregisterRequest* request,
                                                     v1::UnregisterReply* /*reply*/) {
  return Finished(context, wire::ToGrpc(state_.Unregister(request->agent_id())));
}

grpc::ServerWriteReactor<v1::AcquireEvent>* TrackerService::Acquire(
    grpc::CallbackServerContext* context, const v1::AcquireRequest* request) {
  return AcquireReactor::Start(state_, context, *request);
}

grpc::ServerUnaryReactor* TrackerService::ListDevices(grpc::CallbackServerContext* context,
                                                      const v1::ListDevicesRequest* request,
                                                      v1::ListDevicesReply* reply) {
  *reply = state_.ListDevices(request->key());
  return Finished(context, grpc::Status::OK);
}

}  // namespace tunefarm::tracker
