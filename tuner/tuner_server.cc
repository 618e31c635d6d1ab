#include "tuner/tuner_server.h"

#include <chrono>

#include "common/strings.h"
#include "proto/server_start.h"

namespace tunefarm::tuner {

absl::StatusOr<std::unique_ptr<TunerServer>> TunerServer::Start(TunerServerOptions options) {
  auto creds = wire::CheckServerOptions("tuner", options.token, options.port, options.tls);
  if (!creds.ok()) return creds.status();

  std::unique_ptr<TunerServer> server(new TunerServer());
  server->host_ = options.host;
  options.jobs.runner.farm.token = options.token;
  auto jobs = JobManager::Start(std::move(options.jobs));
  if (!jobs.ok()) return jobs.status();
  server->jobs_ = std::move(*jobs);
  server->service_ = std::make_unique<TunerService>(*server->jobs_);
  auto listening = wire::StartListening("tuner", options.host, options.port, *creds, {server->service_.get()},
                                        std::string(v1::Tuner::service_full_name()));
  if (!listening.ok()) {
    server->jobs_->Stop();
    return listening.status();
  }
  server->server_ = std::move(listening->server);
  server->port_ = listening->port;
  return server;
}

std::string TunerServer::address() const { return wire::JoinHostPort(host_, port_); }

void TunerServer::Stop() {
  if (stopped_) return;
  stopped_ = true;
  jobs_->BeginStop();  // watchers return UNAVAILABLE within their next wait
  if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  jobs_->Stop();
}

TunerServer::~TunerServer() { Stop(); }

}  // namespace tunefarm::tuner
