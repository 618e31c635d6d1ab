#include "device_agent/upload_reactor.h"

#include "proto/grpc_status.h"

namespace tunefarm::agent {

UploadReactor::UploadReactor(KernelCache& cache, const AgentDevice& device, v1::UploadReply* reply)
    : upload_(cache, device), reply_(reply) {
  StartRead(&chunk_);
}

void UploadReactor::OnReadDone(bool ok) {
  if (!ok) {  // the client half-closed: all chunks are in (or the call broke: Finish is moot)
    absl::StatusOr<v1::UploadReply> reply = upload_.Finish();
    if (reply.ok()) *reply_ = std::move(*reply);
    Finish(wire::ToGrpc(reply.status()));
    return;
  }
  if (absl::Status s = upload_.Add(chunk_); !s.ok()) {
    Finish(wire::ToGrpc(s));
    return;
  }
  StartRead(&chunk_);
}

}  // namespace tunefarm::agent
