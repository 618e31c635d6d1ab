#include "device_agent/agent_server.h"

#include <unistd.h>

#include <chrono>

#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/server_builder.h>

#include "compiler/common/strings.h"

namespace tunefarm::agent {
namespace {

std::string JoinHostPort(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? StrCat("[", host, "]:", port)
                                             : StrCat(host, ":", port);
}

}  // namespace

absl::StatusOr<std::unique_ptr<AgentServer>> AgentServer::Start(AgentServerOptions options) {
  if (options.token.empty()) return absl::InvalidArgumentError("agent: no token given");
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(StrCat("agent: port ", options.port, " out of range"));
  }
  if (access(options.limits.helper_path.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(StrCat("agent: measure helper '",
                                                options.limits.helper_path,
                                                "' is not an executable file"));
  }
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds =
      wire::MakeServerCredentials(options.tls);
  if (!creds.ok()) return creds.status();
  absl::StatusOr<std::unique_ptr<KernelCache>> cache =
      KernelCache::Create(options.cache_limit_bytes, options.cache_parent);
  if (!cache.ok()) return cache.status();

  std::unique_ptr<AgentServer> server(new AgentServer());
  server->host_ = options.host;
  server->cache_ = std::move(*cache);
  server->runner_ = std::make_unique<MeasureRunner>(*server->cache_, options.limits);
  server->queue_ = std::make_unique<MeasureQueue>();
  server->service_ = std::make_unique<AgentService>(options.token, options.identity,
                                                    *server->cache_, *server->queue_,
                                                    *server->runner_);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  const std::string requested = JoinHostPort(options.host, options.port);
  builder.AddListeningPort(requested, *creds, &server->port_);
  builder.RegisterService(server->service_.get());
  // Two agents on one port would split a device's traffic between them: fail instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(
        StrCat("agent: cannot listen on ", requested, " (port in use, or not a local address?)"));
  }
  server->server_->GetHealthCheckService()->SetServingStatus(
      std::string(v1::DeviceAgent::service_full_name()), true);
  return server;
}

std::string AgentServer::address() const { return JoinHostPort(host_, port_); }

void AgentServer::Stop() {
  if (stopped_) return;
  stopped_ = true;
  // Cancels open calls; a cancelled Measure kills its helper within a few tens of ms.
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  queue_->Stop();
  cache_.reset();
}

AgentServer::~AgentServer() {
  if (server_ != nullptr) Stop();
}

}  // namespace tunefarm::agent
