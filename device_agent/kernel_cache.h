// The agent's kernels: files named by their SHA-256 in a private directory (mode 0700, removed
// with the cache), bounded in bytes, least recently used evicted first. An evicted kernel is
// simply absent: Measure reports it NOT_FOUND and the tuner uploads it again.
//
// Entries are shared_ptrs: a measurement holds its kernels while the helper reads them, and an
// entry evicted meanwhile loses its file only when the last holder lets go. Such pinned,
// evicted files are not counted against the limit.
#ifndef TUNEFARM_DEVICE_AGENT_KERNEL_CACHE_H_
#define TUNEFARM_DEVICE_AGENT_KERNEL_CACHE_H_

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "common/temp_dir.h"

namespace tunefarm::agent {

// One cached kernel file; the file is deleted with the object, and so is the file of its saved
// outputs when it served as a reference (reference_outputs.h).
class CachedKernel {
 public:
  CachedKernel(std::string sha256, std::string path, int64_t size_bytes)
      : sha256_(std::move(sha256)), path_(std::move(path)), size_bytes_(size_bytes) {}
  ~CachedKernel();
  CachedKernel(const CachedKernel&) = delete;
  CachedKernel& operator=(const CachedKernel&) = delete;

  const std::string& sha256() const { return sha256_; }
  const std::string& path() const { return path_; }
  std::string outputs_path() const { return path_ + ".outputs"; }
  int64_t size_bytes() const { return size_bytes_; }

 private:
  std::string sha256_;
  std::string path_;
  int64_t size_bytes_;
};

struct CacheStats {
  int64_t bytes = 0;
  int64_t limit_bytes = 0;
  int32_t kernels = 0;
};

class KernelCache {
 public:
  // Creates the private directory under `parent` ($TMPDIR or /tmp when empty).
  static absl::StatusOr<std::unique_ptr<KernelCache>> Create(int64_t limit_bytes,
                                                             const std::string& parent = "");
  ~KernelCache();  // removes the directory and everything in it
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  const std::string& dir() const { return dir_.path(); }
  int64_t limit_bytes() const { return limit_bytes_; }

  // A fresh path in the directory for an upload in progress.
  std::string NewTemporaryPath();

  // Moves the verified file at `temporary_path` into the cache as `sha256`, evicting least
  // recently used kernels until it fits. A kernel already cached is kept (and marked used) and
  // the new file removed. ResourceExhausted when `size_bytes` exceeds the whole limit.
  absl::StatusOr<std::shared_ptr<const CachedKernel>> Insert(const std::string& sha256,
                                                             const std::string& temporary_path,
                                                             int64_t size_bytes);

  // The kernel, marked most recently used; null when it is not (or no longer) cached.
  std::shared_ptr<const CachedKernel> Find(const std::string& sha256);

  CacheStats stats() const;

 private:
  KernelCache(TempDir dir, int64_t limit_bytes) : dir_(std::move(dir)), limit_bytes_(limit_bytes) {}
  void EvictUntilFits(int64_t incoming_bytes);  // mu_ held

  const TempDir dir_;  // removed with the cache
  const int64_t limit_bytes_;

  mutable std::mutex mu_;
  // Front: most recently used.
  std::list<std::shared_ptr<const CachedKernel>> lru_;
  std::map<std::string, std::list<std::shared_ptr<const CachedKernel>>::iterator> index_;
  int64_t bytes_ = 0;
  uint64_t next_temporary_ = 0;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_KERNEL_CACHE_H_
