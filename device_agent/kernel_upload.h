// One Upload call: chunks arrive in offset order, go to a temporary file in the cache directory
// and into a SHA-256 (OpenSSL) as they come; at the end the content must hash to the declared
// sha256 before it enters the cache. The first chunk may carry the kernel's metadata, which
// lets the agent refuse a kernel for another machine before receiving it.
#ifndef TUNEFARM_DEVICE_AGENT_KERNEL_UPLOAD_H_
#define TUNEFARM_DEVICE_AGENT_KERNEL_UPLOAD_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device_agent/agent_device.h"
#include "device_agent/kernel_cache.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::agent {

// OK when a kernel with this metadata can run here; FailedPrecondition naming the mismatch
// (artifact kind, ABI version, target architecture) otherwise.
absl::Status CheckKernelMetadata(const v1::KernelMetadata& metadata, const AgentDevice& device = {});

// True for 64 lowercase hex digits.
bool IsSha256Hex(const std::string& text);

class KernelUpload {
 public:
  explicit KernelUpload(KernelCache& cache, AgentDevice device = {}) : cache_(cache), device_(std::move(device)) {}
  ~KernelUpload();  // removes the temporary file of an unfinished upload
  KernelUpload(const KernelUpload&) = delete;
  KernelUpload& operator=(const KernelUpload&) = delete;

  // InvalidArgument for a chunk out of order, too large or beyond total_bytes, a first chunk
  // without a valid sha256 or total_bytes; FailedPrecondition for metadata this agent cannot
  // run; ResourceExhausted when total_bytes exceeds the cache.
  absl::Status Add(const v1::Chunk& chunk);

  // After the last chunk: InvalidArgument when bytes are missing or the content's SHA-256
  // differs from the declared one; otherwise the kernel is cached.
  absl::StatusOr<v1::UploadReply> Finish();

 private:
  absl::Status Begin(const v1::Chunk& first);

  struct DigestDeleter {
    void operator()(void* context) const;
  };

  KernelCache& cache_;
  const AgentDevice device_;
  std::string sha256_;
  int64_t total_bytes_ = 0;
  int64_t received_bytes_ = 0;
  std::string path_;
  int fd_ = -1;
  std::unique_ptr<void, DigestDeleter> digest_;  // EVP_MD_CTX
  bool started_ = false;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_KERNEL_UPLOAD_H_
