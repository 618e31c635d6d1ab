#include "tracker/tracker_server.h"

#include <chrono>

#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/server_builder.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tunefarm::tracker {
namespace {

std::string JoinHostPort(const std::string& host, int port) {
  return absl::StrContains(host, ':') ? absl::StrCat("[", host, "]:", port)
                                      : absl::StrCat(host, ":", port);
}

}  // namespace

absl::StatusOr<std::unique_ptr<TrackerServer>> TrackerServer::Start(TrackerServerOptions options) {
  if (options.token.empty()) return absl::InvalidArgumentError("tracker: no token given");
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("tracker: port ", options.port, " out of range"));
  }
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds =
      wire::MakeServerCredentials(options.tls);
  if (!creds.ok()) return creds.status();

  std::unique_ptr<TrackerServer> server(new TrackerServer());
  server->host_ = options.host;
  server->state_ = std::make_unique<TrackerState>(options.tracker);
  server->service_ = std::make_unique<TrackerService>(*server->state_, options.token);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  const std::string requested = JoinHostPort(options.host, options.port);
  builder.AddListeningPort(requested, *creds, &server->port_);
  builder.RegisterService(server->service_.get());
  // Keepalive pings find clients that vanished without closing their connection (a machine
  // lost power), so their leases are released within ~30 s instead of never.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 20000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // gRPC turns SO_REUSEPORT on by default: a second tracker on the same port would then
  // silently share the traffic (two halves of one farm). Fail to start instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("tracker: cannot listen on ", requested, " (port in use, or not a local address?)"));
  }
  server->server_->GetHealthCheckService()->SetServingStatus(
      std::string(v1::Tracker::service_full_name()), true);
  server->state_->StartReaper();
  return server;
}

std::string TrackerServer::address() const { return JoinHostPort(host_, port_); }

void TrackerServer::Stop() {
  if (stopped_) return;
  stopped_ = true;
  state_->RevokeAll("tracker stopping");
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  state_->StopReaper();
}

TrackerServer::~TrackerServer() {
  if (server_ != nullptr) Stop();
}

}  // namespace tunefarm::tracker
