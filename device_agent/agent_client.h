// Client side of the DeviceAgent service: typed calls that add the token, an upload that
// splits a kernel into chunks of at most 1 MiB (so gRPC's default limits hold), and Measure
// as a callback per result. Used by the tests, the benchmark and (through the tuner's
// measurement client) the farm.
#ifndef TUNEFARM_DEVICE_AGENT_AGENT_CLIENT_H_
#define TUNEFARM_DEVICE_AGENT_AGENT_CLIENT_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/tunefarm.grpc.pb.h"

namespace tunefarm::agent {

class AgentClient {
 public:
  // `timeout` bounds each call.
  AgentClient(std::shared_ptr<grpc::Channel> channel, std::string token,
              std::chrono::milliseconds timeout = std::chrono::seconds(60));

  // Uploads `bytes` (the metadata, if given, goes with the first chunk). The reply names the
  // kernel by its sha256.
  absl::StatusOr<v1::UploadReply> Upload(std::string_view bytes,
                                         const v1::KernelMetadata* metadata = nullptr);
  // The same with an explicit sha256, chunk size and offsets as given: for tests of the
  // agent's checks.
  absl::StatusOr<v1::UploadReply> UploadChunks(const std::vector<v1::Chunk>& chunks);

  // Calls `on_result` for each result as it arrives; returns the stream's final status.
  absl::Status Measure(const v1::MeasureRequest& request,
                       const std::function<void(const v1::MeasureResult&)>& on_result);
  // Every result, or the stream's error.
  absl::StatusOr<std::vector<v1::MeasureResult>> MeasureAll(const v1::MeasureRequest& request);

  absl::StatusOr<v1::InfoReply> Info();

 private:
  void Prepare(grpc::ClientContext& context) const;

  std::unique_ptr<v1::DeviceAgent::Stub> stub_;
  std::string token_;
  std::chrono::milliseconds timeout_;
};

// The chunks Upload sends for `bytes`: offsets in order, each at most kMaxChunkBytes.
std::vector<v1::Chunk> MakeChunks(std::string_view bytes, const v1::KernelMetadata* metadata);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_AGENT_CLIENT_H_
