#include "device_agent/agent_client.h"

#include <algorithm>

#include <grpcpp/client_context.h>

#include "common/sha256.h"
#include "proto/auth.h"
#include "proto/grpc_status.h"
#include "proto/wire_limits.h"

namespace tunefarm::agent {

AgentClient::AgentClient(std::shared_ptr<grpc::Channel> channel, std::string token,
                         std::chrono::milliseconds timeout)
    : stub_(v1::DeviceAgent::NewStub(channel)), token_(std::move(token)), timeout_(timeout) {}

void AgentClient::Prepare(grpc::ClientContext& context) const {
  wire::AddToken(context, token_);
  context.set_deadline(std::chrono::system_clock::now() + timeout_);
}

std::vector<v1::Chunk> MakeChunks(std::string_view bytes, const v1::KernelMetadata* metadata) {
  std::vector<v1::Chunk> chunks;
  const int64_t total = static_cast<int64_t>(bytes.size());
  for (int64_t offset = 0; offset < total || chunks.empty(); offset += wire::kMaxChunkBytes) {
    v1::Chunk& chunk = chunks.emplace_back();
    chunk.set_offset(offset);
    const int64_t size = std::min(wire::kMaxChunkBytes, total - offset);
    chunk.set_data(std::string(bytes.substr(static_cast<size_t>(offset), static_cast<size_t>(size))));
    if (offset == 0) {
      chunk.set_sha256(Sha256Hex(bytes));
      chunk.set_total_bytes(total);
      if (metadata != nullptr) *chunk.mutable_metadata() = *metadata;
    }
  }
  return chunks;
}

absl::StatusOr<v1::UploadReply> AgentClient::Upload(std::string_view bytes,
                                                    const v1::KernelMetadata* metadata) {
  return UploadChunks(MakeChunks(bytes, metadata));
}

absl::StatusOr<v1::UploadReply> AgentClient::UploadChunks(const std::vector<v1::Chunk>& chunks) {
  grpc::ClientContext context;
  Prepare(context);
  v1::UploadReply reply;
  std::unique_ptr<grpc::ClientWriter<v1::Chunk>> writer = stub_->Upload(&context, &reply);
  for (const v1::Chunk& chunk : chunks) {
    if (!writer->Write(chunk)) break;  // the server ended the call: Finish says why
  }
  writer->WritesDone();
  const grpc::Status status = writer->Finish();
  if (!status.ok()) return wire::ToAbsl(status);
  return reply;
}

absl::Status AgentClient::Measure(const v1::MeasureRequest& request,
                                  const std::function<void(const v1::MeasureResult&)>& on_result) {
  grpc::ClientContext context;
  Prepare(context);
  std::unique_ptr<grpc::ClientReader<v1::MeasureResult>> reader = stub_->Measure(&context, request);
  v1::MeasureResult result;
  while (reader->Read(&result)) on_result(result);
  return wire::ToAbsl(reader->Finish());
}

absl::StatusOr<std::vector<v1::MeasureResult>> AgentClient::MeasureAll(
    const v1::MeasureRequest& request) {
  std::vector<v1::MeasureResult> results;
  absl::Status status =
      Measure(request, [&](const v1::MeasureResult& result) { results.push_back(result); });
  if (!status.ok()) return status;
  return results;
}

absl::StatusOr<v1::InfoReply> AgentClient::Info() {
  grpc::ClientContext context;
  Prepare(context);
  v1::InfoReply reply;
  const grpc::Status status = stub_->Info(&context, v1::InfoRequest(), &reply);
  if (!status.ok()) return wire::ToAbsl(status);
  return reply;
}

}  // namespace tunefarm::agent
