// The Tracker gRPC service: thin handlers over TrackerState. A call reaches them only with the
// farm's token: the server's credentials check it (proto/token_gate.h).
#ifndef TUNEFARM_TRACKER_TRACKER_SERVICE_H_
#define TUNEFARM_TRACKER_TRACKER_SERVICE_H_

#include "proto/tunefarm.grpc.pb.h"
#include "tracker/tracker_state.h"

namespace tunefarm::tracker {

class TrackerService final : public v1::Tracker::CallbackService {
 public:
  explicit TrackerService(TrackerState& state);

  grpc::ServerUnaryReactor* Register(grpc::CallbackServerContext* context,
                                     const v1::RegisterRequest* request,
                                     v1::RegisterReply* reply) override;
  grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* context,
                                      const v1::HeartbeatRequest* request,
                                      v1::HeartbeatReply* reply) override;
  grpc::ServerUnaryReactor* Unregister(grpc::CallbackServerContext* context,
                                       const v1::UnregisterRequest* request,
                                       v1::UnregisterReply* reply) override;
  grpc::ServerWriteReactor<v1::AcquireEvent>* Acquire(grpc::CallbackServerContext* context,
                                                      const v1::AcquireRequest* request) override;
  grpc::ServerUnaryReactor* ListDevices(grpc::CallbackServerContext* context,
                                        const v1::ListDevicesRequest* request,
                                        v1::ListDevicesReply* reply) override;

 private:
  TrackerState& state_;
};

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_TRACKER_SERVICE_H_
