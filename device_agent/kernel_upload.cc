#include "device_agent/kernel_upload.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/strings.h"
#include "deploy/ptx_library.h"
#include "deploy/tunefarm_abi.h"
#include "device_agent/target_arch.h"
#include "proto/wire_limits.h"

namespace tunefarm::agent {
namespace {

std::string Hex(const unsigned char* bytes, unsigned length) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (unsigned i = 0; i < length; ++i) {
    text.push_back(kDigits[bytes[i] >> 4]);
    text.push_back(kDigits[bytes[i] & 15]);
  }
  return text;
}

// "cuda -arch=sm_90 ..." -> 90; -1 without a valid -arch.
int TargetSm(std::string_view target) {
  const size_t at = target.find("-arch=");
  if (at == std::string_view::npos) return -1;
  const std::string_view arch = target.substr(at + 6);
  return deploy::SmVersion(arch.substr(0, arch.find(' ')));
}

}  // namespace

void KernelUpload::DigestDeleter::operator()(void* context) const {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context));
}

bool IsSha256Hex(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

absl::Status CheckKernelMetadata(const v1::KernelMetadata& metadata, const AgentDevice& device) {
  const v1::ArtifactKind runs = device.gpu() ? v1::ARTIFACT_KIND_PTX : v1::ARTIFACT_KIND_ELF_SO;
  if (metadata.artifact_kind() != v1::ARTIFACT_KIND_UNSPECIFIED && metadata.artifact_kind() != runs) {
    return absl::FailedPreconditionError(StrCat("this agent runs ", device.gpu() ? "PTX libraries on " + device.cuda : "ELF shared objects",
                                                " only, not ", v1::ArtifactKind_Name(metadata.artifact_kind())));
  }
  if (metadata.abi_version() != 0 && metadata.abi_version() != TUNEFARM_ABI_VERSION) {
    return absl::FailedPreconditionError(StrCat("kernel built for ABI version ",
                                                metadata.abi_version(), ", this agent runs ",
                                                TUNEFARM_ABI_VERSION));
  }
  if (metadata.target().empty()) return absl::OkStatus();
  const bool cuda_target = StartsWith(metadata.target(), "cuda");
  if (cuda_target != device.gpu()) {
    return absl::FailedPreconditionError(
        StrCat("kernel refused: its target \"", metadata.target(), "\" is for ", cuda_target ? "a CUDA GPU" : "a CPU",
               ", this agent runs kernels on ", device.gpu() ? device.cuda : "the CPU (--device cuda:N serves a GPU)"));
  }
  if (cuda_target) {
    const int needs = TargetSm(metadata.target());
    if (needs < 0 || needs > device.sm) {
      return absl::FailedPreconditionError(StrCat("kernel refused: its target \"", metadata.target(), "\" needs a newer GPU than ",
                                                  device.cuda, " (compute capability ", device.sm / 10, ".", device.sm % 10, ")"));
    }
    return absl::OkStatus();
  }
  if (std::string mismatch = TargetMismatch(metadata.target()); !mismatch.empty()) {
    return absl::FailedPreconditionError(StrCat("kernel refused: ", mismatch));
  }
  return absl::OkStatus();
}

KernelUpload::~KernelUpload() {
  if (fd_ >= 0) close(fd_);
  if (!path_.empty()) unlink(path_.c_str());
}

absl::Status KernelUpload::Begin(const v1::Chunk& first) {
  started_ = true;
  if (!IsSha256Hex(first.sha256())) {
    return absl::InvalidArgumentError(
        "the first chunk must name the artifact's sha256 (64 lowercase hex digits)");
  }
  if (first.total_bytes() <= 0) {
    return absl::InvalidArgumentError("the first chunk must give total_bytes > 0");
  }
  if (first.total_bytes() > cache_.limit_bytes()) {
    return absl::ResourceExhaustedError(StrCat("kernel of ", first.total_bytes(),
                                               " bytes exceeds the agent's kernel cache of ",
                                               cache_.limit_bytes(), " bytes"));
  }
  if (first.has_metadata()) {
    if (absl::Status s = CheckKernelMetadata(first.metadata(), device_); !s.ok()) return s;
  }
  sha256_ = first.sha256();
  total_bytes_ = first.total_bytes();
  path_ = cache_.NewTemporaryPath();
  fd_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    const int error = errno;
    path_.clear();
    return absl::InternalError(StrCat("cannot create an upload file in ", cache_.dir(), ": ",
                                      std::strerror(error)));
  }
  digest_.reset(EVP_MD_CTX_new());
  if (digest_ == nullptr ||
      EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(digest_.get()), EVP_sha256(), nullptr) != 1) {
    return absl::InternalError("cannot start a SHA-256 digest");
  }
  return absl::OkStatus();
}

absl::Status KernelUpload::Add(const v1::Chunk& chunk) {
  if (!started_) {
    if (absl::Status s = Begin(chunk); !s.ok()) return s;
  } else if (fd_ < 0) {
    return absl::FailedPreconditionError("upload already failed or finished");
  } else if (!chunk.sha256().empty() && chunk.sha256() != sha256_) {
    return absl::InvalidArgumentError(
        StrCat("chunk at offset ", chunk.offset(), " names another sha256 than the first chunk"));
  }
  const std::string& data = chunk.data();
  const int64_t size = static_cast<int64_t>(data.size());
  if (size > wire::kMaxChunkBytes) {
    return absl::InvalidArgumentError(StrCat("chunk of ", size, " bytes exceeds the limit of ",
                                             wire::kMaxChunkBytes, " bytes"));
  }
  if (chunk.offset() != received_bytes_) {
    return absl::InvalidArgumentError(StrCat("chunk at offset ", chunk.offset(),
                                             ", expected offset ", received_bytes_));
  }
  if (received_bytes_ + size > total_bytes_) {
    return absl::InvalidArgumentError(StrCat("chunks exceed the declared total_bytes ",
                                             total_bytes_));
  }
  const char* bytes = data.data();
  for (size_t left = data.size(); left > 0;) {
    const ssize_t n = write(fd_, bytes, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::ResourceExhaustedError(
          StrCat("cannot write the upload to ", path_, ": ", std::strerror(errno)));
    }
    bytes += n;
    left -= static_cast<size_t>(n);
  }
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(digest_.get()), data.data(), data.size());
  received_bytes_ += size;
  return absl::OkStatus();
}

absl::StatusOr<v1::UploadReply> KernelUpload::Finish() {
  if (!started_) return absl::InvalidArgumentError("upload without any chunk");
  if (fd_ < 0) return absl::FailedPreconditionError("upload already failed or finished");
  if (received_bytes_ != total_bytes_) {
    return absl::InvalidArgumentError(StrCat("upload ended after ", received_bytes_, " of ",
                                             total_bytes_, " bytes"));
  }
  unsigned char hash[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(digest_.get()), hash, &length);
  const std::string actual = Hex(hash, length);
  if (actual != sha256_) {
    return absl::InvalidArgumentError(StrCat("content has sha256 ", actual,
                                             " but the upload declared ", sha256_));
  }
  close(fd_);
  fd_ = -1;
  absl::StatusOr<std::shared_ptr<const CachedKernel>> cached =
      cache_.Insert(sha256_, path_, total_bytes_);
  path_.clear();  // the cache moved or removed it
  if (!cached.ok()) return cached.status();
  v1::UploadReply reply;
  reply.set_sha256(sha256_);
  reply.set_size_bytes(total_bytes_);
  return reply;
}

}  // namespace tunefarm::agent
