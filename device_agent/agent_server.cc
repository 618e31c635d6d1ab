#include "device_agent/agent_server.h"

#include <unistd.h>

#include <chrono>

#include "common/strings.h"
#include "proto/server_start.h"

namespace tunefarm::agent {

absl::StatusOr<std::unique_ptr<AgentServer>> AgentServer::Start(AgentServerOptions options) {
  auto creds = wire::CheckServerOptions("agent", options.token, options.port, options.tls);
  if (!creds.ok()) return creds.status();
  if (access(options.limits.helper_path.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(StrCat("agent: measure helper '",
                                                options.limits.helper_path,
                                                "' is not an executable file"));
  }
  absl::StatusOr<std::unique_ptr<KernelCache>> cache =
      KernelCache::Create(options.cache_limit_bytes, options.cache_parent);
  if (!cache.ok()) return cache.status();

  std::unique_ptr<AgentServer> server(new AgentServer());
  server->host_ = options.host;
  server->cache_ = std::move(*cache);
  server->runner_ = std::make_unique<MeasureRunner>(*server->cache_, options.limits);
  server->queue_ = std::make_unique<MeasureQueue>();
  server->service_ = std::make_unique<AgentService>(options.identity,
                                                    *server->cache_, *server->queue_,
                                                    *server->runner_);
  auto listening = wire::StartListening("agent", options.host, options.port, *creds, {server->service_.get()},
                                        std::string(v1::DeviceAgent::service_full_name()));
  if (!listening.ok()) return listening.status();
  server->server_ = std::move(listening->server);
  server->port_ = listening->port;
  return server;
}

std::string AgentServer::address() const { return wire::JoinHostPort(host_, port_); }

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
