#include "tuner/tuner_server.h"

#include <chrono>

#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/server_builder.h>

#include "compiler/common/strings.h"

namespace tunefarm::tuner {
namespace {

std::string JoinHostPort(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? StrCat("[", host, "]:", port) : StrCat(host, ":", port);
}

}  // namespace

absl::StatusOr<std::unique_ptr<TunerServer>> TunerServer::Start(TunerServerOptions options) {
  if (options.token.empty()) return absl::InvalidArgumentError("tuner: no token given");
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(StrCat("tuner: port ", options.port, " out of range"));
  }
  auto creds = wire::MakeServerCredentials(options.tls);
  if (!creds.ok()) return creds.status();

  std::unique_ptr<TunerServer> server(new TunerServer());
  server->host_ = options.host;
  options.jobs.runner.farm.token = options.token;
  auto jobs = JobManager::Start(std::move(options.jobs));
  if (!jobs.ok()) return jobs.status();
  server->jobs_ = std::move(*jobs);
  server->service_ = std::make_unique<TunerService>(*server->jobs_, options.token);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  const std::string requested = JoinHostPort(options.host, options.port);
  builder.AddListeningPort(requested, *creds, &server->port_);
  builder.RegisterService(server->service_.get());
  // As the tracker: a second tuner on the same port must fail, not share the traffic.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    server->jobs_->Stop();
    return absl::UnavailableError(
        StrCat("tuner: cannot listen on ", requested, " (port in use, or not a local address?)"));
  }
  server->server_->GetHealthCheckService()->SetServingStatus(std::string(v1::Tuner::service_full_name()),
                                                             true);
  return server;
}

std::string TunerServer::address() const { return JoinHostPort(host_, port_); }

void TunerServer::Stop() {
  if (stopped_) return;
  stopped_ = true;
  jobs_->BeginStop();  // watchers return UNAVAILABLE within their next wait
  if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  jobs_->Stop();
}

TunerServer::~TunerServer() { Stop(); }

}  // namespace tunefarm::tuner
