#include "proto/server_start.h"

#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/server_builder.h>

#include "absl/strings/str_cat.h"

namespace tunefarm::wire {

std::string JoinHostPort(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? absl::StrCat("[", host, "]:", port) : absl::StrCat(host, ":", port);
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> CheckServerOptions(const std::string& what,
                                                                           const std::string& token, int port,
                                                                           const TlsFiles& tls) {
  if (token.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": no token given"));
  if (port < 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": port ", port, " out of range"));
  }
  return MakeServerCredentials(tls, token);
}

absl::StatusOr<ListeningServer> StartListening(const std::string& what, const std::string& host, int port,
                                               const std::shared_ptr<grpc::ServerCredentials>& credentials,
                                               const std::vector<grpc::Service*>& services,
                                               const std::string& health_name) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  ListeningServer listening;
  const std::string requested = JoinHostPort(host, port);
  builder.AddListeningPort(requested, credentials, &listening.port);
  for (grpc::Service* service : services) builder.RegisterService(service);
  // Keepalive pings find peers that vanished without closing their connection (a machine lost
  // power): the tracker then releases their leases, an agent stops measuring for a dead tuner,
  // and a tuner drops its watchers, within ~30 s instead of never.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 20000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // gRPC turns SO_REUSEPORT on by default: a second server on the same port would then
  // silently share the traffic (two halves of one farm, or of one device). Fail instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  listening.server = builder.BuildAndStart();
  if (listening.server == nullptr || listening.port == 0) {
    return absl::UnavailableError(
        absl::StrCat(what, ": cannot listen on ", requested, " (port in use, or not a local address?)"));
  }
  listening.server->GetHealthCheckService()->SetServingStatus(health_name, true);
  listening.address = JoinHostPort(host, listening.port);
  return listening;
}

}  // namespace tunefarm::wire
