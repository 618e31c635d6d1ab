// The server side of one Upload stream (callback API): reads chunks into a KernelUpload and
// finishes with its reply or its first error. The token must already have been checked.
#ifndef TUNEFARM_DEVICE_AGENT_UPLOAD_REACTOR_H_
#define TUNEFARM_DEVICE_AGENT_UPLOAD_REACTOR_H_

#include <grpcpp/support/server_callback.h>

#include "device_agent/kernel_cache.h"
#include "device_agent/kernel_upload.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::agent {

class UploadReactor final : public grpc::ServerReadReactor<v1::Chunk> {
 public:
  // Starts reading; gRPC owns the reactor (it deletes itself in OnDone).
  UploadReactor(KernelCache& cache, const AgentDevice& device, v1::UploadReply* reply);

  void OnReadDone(bool ok) override;
  void OnCancel() override {}  // OnDone follows; the upload's destructor removes its file
  void OnDone() override { delete this; }

 private:
  KernelUpload upload_;
  v1::UploadReply* reply_;
  v1::Chunk chunk_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_UPLOAD_REACTOR_H_
