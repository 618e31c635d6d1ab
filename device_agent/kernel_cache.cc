#include "device_agent/kernel_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/status/status.h"
#include "common/strings.h"

namespace tunefarm::agent {

CachedKernel::~CachedKernel() {
  unlink(path_.c_str());
  unlink(outputs_path().c_str());
}

absl::StatusOr<std::unique_ptr<KernelCache>> KernelCache::Create(int64_t limit_bytes,
                                                                 const std::string& parent) {
  if (limit_bytes <= 0) {
    return absl::InvalidArgumentError(StrCat("kernel cache limit must be positive, got ", limit_bytes));
  }
  // Private (mode 0700): other users can neither list nor replace the kernels between upload
  // and measurement.
  absl::StatusOr<TempDir> dir = TempDir::Create("tunefarm-agent", parent);
  if (!dir.ok()) return absl::FailedPreconditionError(StrCat("kernel cache: ", std::string(dir.status().message())));
  return std::unique_ptr<KernelCache>(new KernelCache(*std::move(dir), limit_bytes));
}

KernelCache::~KernelCache() {
  {
    std::lock_guard lock(mu_);
    index_.clear();
    lru_.clear();
  }
}

std::string KernelCache::NewTemporaryPath() {
  std::lock_guard lock(mu_);
  return dir_.File(StrCat("upload-", next_temporary_++, ".part"));
}

void KernelCache::EvictUntilFits(int64_t incoming_bytes) {
  while (!lru_.empty() && bytes_ + incoming_bytes > limit_bytes_) {
    const std::shared_ptr<const CachedKernel>& victim = lru_.back();
    bytes_ -= victim->size_bytes();
    index_.erase(victim->sha256());
    lru_.pop_back();  // the file goes when the last holder lets go
  }
}

absl::StatusOr<std::shared_ptr<const CachedKernel>> KernelCache::Insert(
    const std::string& sha256, const std::string& temporary_path, int64_t size_bytes) {
  if (size_bytes > limit_bytes_) {
    unlink(temporary_path.c_str());
    return absl::ResourceExhaustedError(StrCat("kernel of ", size_bytes,
                                               " bytes exceeds the agent's kernel cache of ",
                                               limit_bytes_, " bytes"));
  }
  std::lock_guard lock(mu_);
  if (auto it = index_.find(sha256); it != index_.end()) {
    unlink(temporary_path.c_str());
    lru_.splice(lru_.begin(), lru_, it->second);
    return *it->second;
  }
  EvictUntilFits(size_bytes);
  // A generation number keeps the name unique: an evicted copy still pinned by a measurement
  // deletes its own file later, never a re-uploaded one.
  const std::string path = dir_.File(StrCat(sha256, "-", next_temporary_++, ".so"));
  if (rename(temporary_path.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(temporary_path.c_str());
    return absl::InternalError(
        StrCat("cannot move upload into the cache as ", path, ": ", std::strerror(error)));
  }
  lru_.push_front(std::make_shared<const CachedKernel>(sha256, path, size_bytes));
  index_[sha256] = lru_.begin();
  bytes_ += size_bytes;
  return lru_.front();
}

std::shared_ptr<const CachedKernel> KernelCache::Find(const std::string& sha256) {
  std::lock_guard lock(mu_);
  auto it = index_.find(sha256);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return *it->second;
}

CacheStats KernelCache::stats() const {
  std::lock_guard lock(mu_);
  return {bytes_, limit_bytes_, static_cast<int32_t>(index_.size())};
}

}  // namespace tunefarm::agent
