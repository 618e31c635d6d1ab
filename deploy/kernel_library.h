// Loads a kernel shared object (tunefarm_abi.h) and calls its entries.
//
//   auto lib = KernelLibrary::Load("conv.so", &pool);
//   if (!lib.ok()) return lib.status();
//   void* args[] = {input, weight, output};
//   Status s = (*lib)->Call("conv2d", args, 3);
#ifndef TUNEFARM_DEPLOY_KERNEL_LIBRARY_H_
#define TUNEFARM_DEPLOY_KERNEL_LIBRARY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "deploy/aligned_buffer.h"
#include "deploy/kernel_metadata.h"
#include "deploy/status.h"
#include "deploy/thread_pool.h"
#include "deploy/tunefarm_abi.h"

namespace tunefarm::deploy {

class KernelLibrary {
 public:
  // dlopens `path` (RTLD_NOW | RTLD_LOCAL; a path without '/' is taken relative to the working
  // directory, never searched for), checks tunefarm_abi_version, parses tunefarm_metadata, sets
  // tunefarm_host_api and resolves every entry. `pool` runs the kernels' parallel loops (null:
  // on the calling thread) and must outlive the library. Every error names the file.
  static Result<std::unique_ptr<KernelLibrary>> Load(const std::string& path,
                                                     ThreadPool* pool = nullptr);

  // The same from an in-memory image (e.g. bytes received by the agent): the image goes into
  // a memfd and is dlopened as /proc/self/fd/N, so nothing touches the disk. `name` stands for
  // the file in error messages.
  static Result<std::unique_ptr<KernelLibrary>> LoadFromBytes(const void* data, size_t size,
                                                              std::string_view name = "<memory>",
                                                              ThreadPool* pool = nullptr);

  ~KernelLibrary();  // dlclose
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  // The path, or the name given to LoadFromBytes.
  const std::string& name() const { return name_; }
  const KernelMetadata& metadata() const { return metadata_; }
  ThreadPool* thread_pool() const { return pool_; }
  void set_thread_pool(ThreadPool* pool) { pool_ = pool; }

  // Runs `entry` on `args` (inputs then outputs, metadata order). Checks the argument count
  // and that every non-empty argument is non-null and 64-byte aligned, provides the entry's
  // workspace (allocated once, reused by later calls) and binds the thread pool for the call.
  // A non-zero kernel return gives StatusCode::kKernelError with kernel_code() set.
  // Calls on one library are serialised (they share the workspace); use one library per
  // thread to run in parallel.
  Status Call(std::string_view entry, void** args, int32_t num_args);

  // The raw entry point, or null; for callers that manage workspace and pool themselves.
  tunefarm_kernel_fn FindFunction(std::string_view entry) const;

  // Any exported symbol's address (dlsym), or null: e.g. data a model artifact embeds.
  const void* FindSymbol(const std::string& symbol) const;

 private:
  struct Entry {
    const EntryInfo* info;
    tunefarm_kernel_fn fn;
  };

  KernelLibrary(void* handle, std::string name, ThreadPool* pool)
      : handle_(handle), name_(std::move(name)), pool_(pool) {}
  // The bodies of LoadFromBytes and Call, which wrap them to catch exceptions.
  static Result<std::unique_ptr<KernelLibrary>> LoadImage(const void* data, size_t size,
                                                          std::string display, ThreadPool* pool);
  Status CallEntry(std::string_view entry, void** args, int32_t num_args);
  // dlopens `dlopen_path`; `name` is what errors call it.
  static Result<std::unique_ptr<KernelLibrary>> Open(const std::string& dlopen_path,
                                                     std::string name, ThreadPool* pool);
  // Version check, metadata, host API, entry symbols.
  Status Bind();
  const Entry* FindEntry(std::string_view entry) const;
  Status CheckArgs(const Entry& entry, void** args, int32_t num_args) const;
  Status Error(StatusCode code, const std::string& what) const;

  void* handle_;
  std::string name_;
  ThreadPool* pool_;
  KernelMetadata metadata_;
  std::vector<Entry> entries_;
  std::mutex call_mutex_;  // guards workspace_
  AlignedBuffer workspace_;
};

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_KERNEL_LIBRARY_H_
