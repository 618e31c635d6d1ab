// One way to start a farm server (tracker, agent, tuner): the listen address checked, the
// credentials made, SO_REUSEPORT off, the same keepalive settings, gRPC's health service
// serving, and one error naming the server when it cannot listen.
#ifndef TUNEFARM_PROTO_SERVER_START_H_
#define TUNEFARM_PROTO_SERVER_START_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/server.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/credentials.h"

namespace tunefarm::wire {

// "HOST:PORT", with an IPv6 host in brackets.
std::string JoinHostPort(const std::string& host, int port);

// The checks every server makes before it builds anything: a token, a port in 0..65535 (0: any
// free port), and credentials that load. `what` ("tracker") starts each message. The
// credentials carry the token check (token_gate.h): every call but a health check needs it.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> CheckServerOptions(const std::string& what,
                                                                           const std::string& token, int port,
                                                                           const TlsFiles& tls);

struct ListeningServer {
  std::unique_ptr<grpc::Server> server;
  int port = 0;         // the bound port (the one the system chose for port 0)
  std::string address;  // HOST:PORT as clients dial it
};

// Builds and starts a server with `services` on host:port and marks `health_name` (the
// service's full name, e.g. "tunefarm.v1.Tracker") SERVING in the health service.
absl::StatusOr<ListeningServer> StartListening(const std::string& what, const std::string& host, int port,
                                               const std::shared_ptr<grpc::ServerCredentials>& credentials,
                                               const std::vector<grpc::Service*>& services,
                                               const std::string& health_name);

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_SERVER_START_H_
