// A running device agent: the kernel cache, the measure queue and runner, the DeviceAgent
// service and gRPC's health service, on one gRPC server.
#ifndef TUNEFARM_DEVICE_AGENT_AGENT_SERVER_H_
#define TUNEFARM_DEVICE_AGENT_AGENT_SERVER_H_

#include <memory>
#include <string>

#include <grpcpp/server.h>

#include "absl/status/statusor.h"
#include "device_agent/agent_service.h"
#include "device_agent/kernel_cache.h"
#include "device_agent/measure_queue.h"
#include "device_agent/measure_runner.h"
#include "proto/credentials.h"

namespace tunefarm::agent {

struct AgentServerOptions {
  std::string host = "0.0.0.0";
  int port = 0;             // 0: any free port; port() tells which
  std::string token;        // required
  wire::TlsFiles tls;       // empty: plaintext
  AgentIdentity identity;   // key and hardware facts, for Info
  int64_t cache_limit_bytes = int64_t{1} << 30;
  std::string cache_parent;  // where the private cache directory goes; $TMPDIR or /tmp if empty
  MeasureLimits limits;      // limits.helper_path must be an executable
};

class AgentServer {
 public:
  // Listens and serves at once. FailedPrecondition when the helper is not executable or the
  // cache directory cannot be made; Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<AgentServer>> Start(AgentServerOptions options);
  ~AgentServer();  // Stop()

  int port() const { return port_; }
  // HOST:PORT as bound (the port filled in when 0 was asked).
  std::string address() const;
  KernelCache& cache() { return *cache_; }

  // Cancels open calls (killing a measurement in flight), waits up to a second for them to
  // end, and removes the kernel cache. Idempotent.
  void Stop();

 private:
  AgentServer() = default;

  std::string host_;
  int port_ = 0;
  std::unique_ptr<KernelCache> cache_;
  std::unique_ptr<MeasureRunner> runner_;
  std::unique_ptr<MeasureQueue> queue_;
  std::unique_ptr<AgentService> service_;
  std::unique_ptr<grpc::Server> server_;  // last: stopped before what it serves
  bool stopped_ = false;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_AGENT_SERVER_H_
