#include "deploy/kernel_library.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <new>

namespace tunefarm::deploy {
namespace {

std::string DlError() {
  const char* text = dlerror();
  return text != nullptr ? text : "unknown dlopen error";
}

std::string Quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string ArgNames(const EntryInfo& entry) {
  std::string names;
  for (const ArgInfo& arg : entry.args) names += (names.empty() ? "" : ", ") + arg.name;
  return names;
}

// Writes all of `data` to `fd`; false with errno set on failure.
bool WriteAll(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t written = write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

// glibc's dlopen returns an already-loaded object whose name matches, without looking at the
// file. A previous memfd library may still be loaded under "/proc/self/fd/N" while N has been
// closed and reused for our memfd, so move the memfd to a number whose name is free.
// Returns the fd to load from (the others are closed), or -1 if none was found.
int FdWithUnusedName(int fd) {
  std::vector<int> taken;
  int result = -1;
  for (int attempt = 0; attempt < 64 && fd >= 0; ++attempt) {
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    void* loaded = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (loaded == nullptr) {
      result = fd;
      break;
    }
    dlclose(loaded);
    taken.push_back(fd);  // held open so that dup() picks another number
    fd = dup(fd);
  }
  for (int closed : taken) close(closed);
  if (result < 0 && fd >= 0) close(fd);
  return result;
}

}  // namespace

Result<std::unique_ptr<KernelLibrary>> KernelLibrary::Load(const std::string& path,
                                                           ThreadPool* pool) {
  return WithoutExceptions([&]() -> Result<std::unique_ptr<KernelLibrary>> {
    if (path.empty()) return Status(StatusCode::kInvalidArgument, "empty kernel library path");
    // Without a '/', dlopen would search LD_LIBRARY_PATH and the system directories.
    const std::string dlopen_path = path.find('/') == std::string::npos ? "./" + path : path;
    return Open(dlopen_path, path, pool);
  });
}

Result<std::unique_ptr<KernelLibrary>> KernelLibrary::LoadFromBytes(const void* data,
                                                                    size_t size,
                                                                    std::string_view name,
                                                                    ThreadPool* pool) {
  return WithoutExceptions([&] { return LoadImage(data, size, std::string(name), pool); });
}

Result<std::unique_ptr<KernelLibrary>> KernelLibrary::LoadImage(const void* data, size_t size,
                                                                std::string display,
                                                                ThreadPool* pool) {
  if (data == nullptr || size == 0) {
    return Status(StatusCode::kInvalidArgument, display + ": empty kernel library image");
  }
  int fd = memfd_create("tunefarm-kernel", MFD_CLOEXEC);
  if (fd < 0) {
    return Status(StatusCode::kLoadFailed,
                  display + ": memfd_create failed: " + std::strerror(errno));
  }
  if (!WriteAll(fd, static_cast<const uint8_t*>(data), size)) {
    const int error = errno;
    close(fd);
    return Status(StatusCode::kLoadFailed,
                  display + ": writing the image to a memfd failed: " + std::strerror(error));
  }
  fd = FdWithUnusedName(fd);
  if (fd < 0) {
    return Status(StatusCode::kLoadFailed,
                  display + ": no free /proc/self/fd name to load the image from");
  }
  // The mapping keeps the memfd's pages alive once dlopen is done with the descriptor.
  auto library = Open("/proc/self/fd/" + std::to_string(fd), std::move(display), pool);
  close(fd);
  return library;
}

Result<std::unique_ptr<KernelLibrary>> KernelLibrary::Open(const std::string& dlopen_path,
                                                           std::string name,
                                                           ThreadPool* pool) {
  void* handle = dlopen(dlopen_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return Status(StatusCode::kLoadFailed, name + ": dlopen failed: " + DlError());
  }
  // From here the destructor dlcloses, on error too.
  std::unique_ptr<KernelLibrary> library(new KernelLibrary(handle, std::move(name), pool));
  Status status = library->Bind();
  if (!status.ok()) return status;
  return library;
}

KernelLibrary::~KernelLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

Status KernelLibrary::Error(StatusCode code, const std::string& what) const {
  return Status(code, name_ + ": " + what);
}

Status KernelLibrary::Bind() {
  const auto* version =
      static_cast<const uint32_t*>(dlsym(handle_, TUNEFARM_SYM_ABI_VERSION));
  if (version == nullptr) {
    return Error(StatusCode::kLoadFailed, "missing symbol " TUNEFARM_SYM_ABI_VERSION
                                          " (not a tunefarm kernel library?)");
  }
  if (*version != TUNEFARM_ABI_VERSION) {
    return Error(StatusCode::kAbiMismatch,
                 "built for kernel ABI version " + std::to_string(*version) +
                     ", but this runtime implements version " +
                     std::to_string(TUNEFARM_ABI_VERSION));
  }

  const auto* metadata_text = static_cast<const char*>(dlsym(handle_, TUNEFARM_SYM_METADATA));
  if (metadata_text == nullptr) {
    return Error(StatusCode::kLoadFailed, "missing symbol " TUNEFARM_SYM_METADATA);
  }
  Result<KernelMetadata> metadata = ParseKernelMetadata(metadata_text);
  if (!metadata.ok()) {
    return Error(StatusCode::kBadMetadata,
                 "bad " TUNEFARM_SYM_METADATA ": " + metadata.status().message());
  }
  metadata_ = std::move(metadata).value();

  auto** host_api = static_cast<const tunefarm_host_api**>(dlsym(handle_, TUNEFARM_SYM_HOST_API));
  if (host_api == nullptr) {
    return Error(StatusCode::kLoadFailed, "missing symbol " TUNEFARM_SYM_HOST_API);
  }
  *host_api = HostApi();

  entries_.reserve(metadata_.entries.size());
  for (const EntryInfo& info : metadata_.entries) {
    void* fn = dlsym(handle_, info.name.c_str());
    if (fn == nullptr) {
      return Error(StatusCode::kLoadFailed, "the metadata lists entry " + Quoted(info.name) +
                                                " but the library exports no such symbol");
    }
    entries_.push_back({&info, reinterpret_cast<tunefarm_kernel_fn>(fn)});
  }
  return Status();
}

const KernelLibrary::Entry* KernelLibrary::FindEntry(std::string_view entry) const {
  for (const Entry& candidate : entries_) {
    if (candidate.info->name == entry) return &candidate;
  }
  return nullptr;
}

tunefarm_kernel_fn KernelLibrary::FindFunction(std::string_view entry) const {
  const Entry* found = FindEntry(entry);
  return found == nullptr ? nullptr : found->fn;
}

const void* KernelLibrary::FindSymbol(const std::string& symbol) const {
  return dlsym(handle_, symbol.c_str());
}

Status KernelLibrary::CheckArgs(const Entry& entry, void** args, int32_t num_args) const {
  const EntryInfo& info = *entry.info;
  const std::string what = "entry " + Quoted(info.name);
  if (num_args < 0 || static_cast<size_t>(num_args) != info.args.size()) {
    return Error(StatusCode::kInvalidArgument,
                 what + " takes " + std::to_string(info.args.size()) + " arguments (" +
                     ArgNames(info) + "), got " + std::to_string(num_args));
  }
  if (num_args > 0 && args == nullptr) {
    return Error(StatusCode::kInvalidArgument, what + ": the argument array is null");
  }
  for (int32_t i = 0; i < num_args; ++i) {
    const ArgInfo& arg = info.args[i];
    const auto address = reinterpret_cast<uintptr_t>(args[i]);
    if (address == 0 && arg.NumBytes() > 0) {
      return Error(StatusCode::kInvalidArgument,
                   what + ": argument " + std::to_string(i) + " (" + arg.name + ") is null");
    }
    if (address % TUNEFARM_BUFFER_ALIGNMENT != 0) {
      return Error(StatusCode::kInvalidArgument,
                   what + ": argument " + std::to_string(i) + " (" + arg.name +
                       ") is not " + std::to_string(TUNEFARM_BUFFER_ALIGNMENT) +
                       "-byte aligned");
    }
  }
  return Status();
}

Status KernelLibrary::Call(std::string_view entry_name, void** args, int32_t num_args) {
  return WithoutExceptions([&] { return CallEntry(entry_name, args, num_args); });
}

Status KernelLibrary::CallEntry(std::string_view entry_name, void** args, int32_t num_args) {
  const Entry* entry = FindEntry(entry_name);
  if (entry == nullptr) {
    std::string known;
    for (const Entry& e : entries_) known += (known.empty() ? "" : ", ") + e.info->name;
    return Error(StatusCode::kNotFound,
                 "no entry " + Quoted(entry_name) + " (entries: " + known + ")");
  }
  Status status = CheckArgs(*entry, args, num_args);
  if (!status.ok()) return status;

  std::lock_guard<std::mutex> lock(call_mutex_);
  const uint64_t workspace_bytes = entry->info->workspace_bytes;
  if (workspace_bytes > workspace_.size()) {
    if (workspace_bytes > SIZE_MAX) {
      return Error(StatusCode::kOutOfMemory, "workspace of " + std::to_string(workspace_bytes) +
                                                 " bytes is too large");
    }
    Result<AlignedBuffer> grown = AlignedBuffer::Allocate(static_cast<size_t>(workspace_bytes));
    if (!grown.ok()) return Error(StatusCode::kOutOfMemory, "workspace: " + grown.status().message());
    workspace_ = std::move(grown).value();
  }
  void* workspace = workspace_bytes == 0 ? nullptr : workspace_.data();

  ScopedCurrentPool bind(pool_);
  const int32_t code = entry->fn(args, num_args, workspace);
  if (code != 0) {
    return Status::KernelError(code, name_ + ": entry " + Quoted(entry->info->name) +
                                         " returned error " + std::to_string(code));
  }
  return Status();
}

}  // namespace tunefarm::deploy
