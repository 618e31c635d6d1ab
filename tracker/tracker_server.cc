#include "tracker/tracker_server.h"

#include <chrono>

#include "proto/server_start.h"

namespace tunefarm::tracker {

absl::StatusOr<std::unique_ptr<TrackerServer>> TrackerServer::Start(TrackerServerOptions options) {
  auto creds = wire::CheckServerOptions("tracker", options.token, options.port, options.tls);
  if (!creds.ok()) return creds.status();

  std::unique_ptr<TrackerServer> server(new TrackerServer());
  server->host_ = options.host;
  server->state_ = std::make_unique<TrackerState>(options.tracker);
  server->service_ = std::make_unique<TrackerService>(*server->state_);
  auto listening = wire::StartListening("tracker", options.host, options.port, *creds, {server->service_.get()},
                                        std::string(v1::Tracker::service_full_name()));
  if (!listening.ok()) return listening.status();
  server->server_ = std::move(listening->server);
  server->port_ = listening->port;
  server->state_->StartReaper();
  return server;
}

std::string TrackerServer::address() const { return wire::JoinHostPort(host_, port_); }

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
