// A CUDA device through the driver API (cuda_driver_api.h): its primary context, device
// buffers, PTX modules, an entry's launches (docs/kernel-abi.md "GPU kernel libraries") and
// event timing. Shared by the GPU agent's measure helper and the runtime's CUDA component.
// Every error names what failed and the driver's error; a failure after which the context is
// lost (cuda::LosesContext) carries the CUresult as Status::kernel_code().
#ifndef TUNEFARM_DEPLOY_CUDA_DEVICE_H_
#define TUNEFARM_DEPLOY_CUDA_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "deploy/cuda_driver_api.h"
#include "deploy/kernel_metadata.h"
#include "deploy/status.h"

namespace tunefarm::deploy::cuda {

class Context {
 public:
  // Retains device `ordinal`'s primary context. The driver's calls act on their thread's current
  // context: a process that owns its thread (the measure helper) makes it current once
  // (MakeCurrent); a library, whose caller's threads may use other contexts, for each call
  // (ScopedCurrent).
  static Result<std::unique_ptr<Context>> Open(std::shared_ptr<const DriverApi> api, int ordinal);
  Status MakeCurrent() const;
  CUcontext handle() const { return context_; }
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DriverApi& api() const { return *api_; }
  int ordinal() const { return ordinal_; }
  // The attribute's value, or 0 when the driver does not answer.
  int Get(Attribute which) const;
  // major * 10 + minor, e.g. 90.
  int ComputeCapability() const { return Get(kComputeCapabilityMajor) * 10 + Get(kComputeCapabilityMinor); }

  // OK for kSuccess; otherwise "<what>: <driver's error>", kOutOfMemory for an allocation
  // that does not fit and kKernelError (kernel_code = result) for the rest.
  Status Check(CUresult result, const std::string& what) const;

 private:
  Context(std::shared_ptr<const DriverApi> api, int ordinal, CUdevice device, CUcontext context)
      : api_(std::move(api)), ordinal_(ordinal), device_(device), context_(context) {}
  std::shared_ptr<const DriverApi> api_;
  int ordinal_ = 0;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

// The context current on the calling thread for the guard's life: pushed on the thread's stack
// of contexts and popped at the end, so whatever the caller had current (its own CUDA runtime's,
// another device's) is current again afterwards.
class ScopedCurrent {
 public:
  explicit ScopedCurrent(const Context& context);
  ~ScopedCurrent();
  ScopedCurrent(const ScopedCurrent&) = delete;
  ScopedCurrent& operator=(const ScopedCurrent&) = delete;
  // Whether the push worked (the calls under the guard need it).
  const Status& status() const { return status_; }

 private:
  const Context& context_;
  Status status_;
};

// Device memory, freed with the object. Zero bytes hold no allocation (get() is 0).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static Result<DeviceBuffer> Allocate(const Context& context, size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  CUdeviceptr get() const { return ptr_; }
  size_t size() const { return size_; }
  Status Upload(const void* host) const { return UploadAt(0, host, size_); }
  Status Download(void* host) const { return DownloadAt(0, host, size_); }
  // `bytes` bytes at `offset` (kInvalidArgument beyond the buffer).
  Status UploadAt(size_t offset, const void* host, size_t bytes) const;
  Status DownloadAt(size_t offset, void* host, size_t bytes) const;
  Status Fill(uint8_t byte) const;
  // Forgets the allocation without freeing it: for when its context cannot be made current
  // (the driver frees it with the context).
  void Abandon() {
    ptr_ = 0;
    size_ = 0;
  }

 private:
  const Context* context_ = nullptr;
  CUdeviceptr ptr_ = 0;
  size_t size_ = 0;
};

class Module {
 public:
  // JIT-compiles the PTX text for the context's device. kLoadFailed with the driver's error and
  // the JIT compiler's log ("ptxas application ptx input, line 12; error ...").
  static Result<std::unique_ptr<Module>> Load(const Context& context, const std::string& ptx);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // kNotFound naming the kernel.
  Result<CUfunction> Function(const std::string& name) const;

 private:
  Module(const Context& context, CUmodule module) : context_(context), module_(module) {}
  const Context& context_;
  CUmodule module_ = nullptr;
};

// One entry's launches bound to their kernels.
class EntryLaunches {
 public:
  // Finds each launch's kernel in `module` and checks its shape against the device's limits:
  // threads per block, each block and grid dimension, static shared memory (kInvalidArgument
  // naming the launch and the limit). An entry without launches is kBadMetadata.
  static Result<EntryLaunches> Bind(const Context& context, const Module& module, const EntryInfo& entry);

  // Queues the launches in order on the default stream, each with (args..., workspace); does
  // not wait for them. A launch the driver refuses is named.
  Status Launch(const std::vector<CUdeviceptr>& args, CUdeviceptr workspace) const;

  size_t size() const { return launches_.size(); }

 private:
  const Context* context_ = nullptr;
  std::string entry_;
  std::vector<LaunchInfo> launches_;
  std::vector<CUfunction> functions_;
};

// Waits for everything queued on the context ("<what>: <driver's error>" when a kernel failed).
Status Synchronize(const Context& context, const std::string& what);

// GPU time between Start() and Stop(), measured with a pair of CUDA events on the default stream.
class EventTimer {
 public:
  static Result<std::unique_ptr<EventTimer>> Create(const Context& context);
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  Status Start();
  // Waits for the stop event; the seconds between the events.
  Result<double> StopSeconds();

 private:
  explicit EventTimer(const Context& context) : context_(context) {}
  const Context& context_;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
};

}  // namespace tunefarm::deploy::cuda

#endif  // TUNEFARM_DEPLOY_CUDA_DEVICE_H_
