// The DeviceAgent gRPC service: thin handlers. Each checks the token first and, for a call
// that fails it, answers UNAUTHENTICATED having done nothing else: no chunk read, no job queued.
#ifndef TUNEFARM_DEVICE_AGENT_AGENT_SERVICE_H_
#define TUNEFARM_DEVICE_AGENT_AGENT_SERVICE_H_

#include <string>

#include "device_agent/kernel_cache.h"
#include "device_agent/measure_queue.h"
#include "device_agent/measure_runner.h"
#include "proto/tunefarm.grpc.pb.h"

namespace tunefarm::agent {

// What Info reports besides the live cache and queue state.
struct AgentIdentity {
  std::string key;
  v1::HardwareFacts facts;
};

// The version string Info reports.
inline constexpr char kAgentVersion[] = "tunefarm-agent 1";

class AgentService final : public v1::DeviceAgent::CallbackService {
 public:
  // Calls reach it only with the farm's token: the server's credentials check it
  // (proto/token_gate.h).
  AgentService(AgentIdentity identity, KernelCache& cache, MeasureQueue& queue, MeasureRunner& runner);

  grpc::ServerReadReactor<v1::Chunk>* Upload(grpc::CallbackServerContext* context,
                                             v1::UploadReply* reply) override;
  grpc::ServerWriteReactor<v1::MeasureResult>* Measure(grpc::CallbackServerContext* context,
                                                       const v1::MeasureRequest* request) override;
  grpc::ServerUnaryReactor* Info(grpc::CallbackServerContext* context,
                                 const v1::InfoRequest* request, v1::InfoReply* reply) override;

 private:
  const AgentIdentity identity_;
  KernelCache& cache_;
  MeasureQueue& queue_;
  MeasureRunner& runner_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_AGENT_SERVICE_H_
