// Client of gRPC's standard health service (grpc.health.v1.Health/Check), which every farm
// server runs. It carries no token: it reveals only whether a service is serving.
#ifndef TUNEFARM_PROTO_HEALTH_CLIENT_H_
#define TUNEFARM_PROTO_HEALTH_CLIENT_H_

#include <chrono>
#include <memory>
#include <string>

#include <grpcpp/channel.h>

#include "absl/status/statusor.h"

namespace tunefarm::wire {

// True when `service` ("" = the whole server) reports SERVING. NotFound for a service the
// server does not know; the call's error when it fails.
absl::StatusOr<bool> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                 const std::string& service, std::chrono::milliseconds timeout);

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_HEALTH_CLIENT_H_
