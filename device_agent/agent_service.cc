#include "device_agent/agent_service.h"

#include "deploy/tunefarm_abi.h"
#include "device_agent/measure_reactor.h"
#include "device_agent/upload_reactor.h"

namespace tunefarm::agent {

AgentService::AgentService(AgentIdentity identity, KernelCache& cache, MeasureQueue& queue,
                           MeasureRunner& runner)
    : identity_(std::move(identity)),
      cache_(cache),
      queue_(queue),
      runner_(runner) {}

grpc::ServerReadReactor<v1::Chunk>* AgentService::Upload(grpc::CallbackServerContext* /*context*/,
                                                         v1::UploadReply* reply) {
  return new UploadReactor(cache_, runner_.limits().device, reply);
}

grpc::ServerWriteReactor<v1::MeasureResult>* AgentService::Measure(
    grpc::CallbackServerContext* /*context*/, const v1::MeasureRequest* request) {
  return MeasureReactor::Start(queue_, runner_, *request);
}

grpc::ServerUnaryReactor* AgentService::Info(grpc::CallbackServerContext* context,
                                             const v1::InfoRequest* /*request*/,
                                             v1::InfoReply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reply->set_key(identity_.key);
  *reply->mutable_facts() = identity_.facts;
  reply->set_agent_version(kAgentVersion);
  reply->set_abi_version(TUNEFARM_ABI_VERSION);
  reply->add_accepts(runner_.limits().device.gpu() ? v1::ARTIFACT_KIND_PTX : v1::ARTIFACT_KIND_ELF_SO);
  const CacheStats stats = cache_.stats();
  reply->set_cache_bytes(stats.bytes);
  reply->set_cache_limit_bytes(stats.limit_bytes);
  reply->set_cached_kernels(stats.kernels);
  reply->set_measuring(queue_.busy());
  reply->set_helpers_started(runner_.helpers_started());
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace tunefarm::agent
