#include "deploy/cuda_device.h"

#include <sstream>

#include "deploy/tunefarm_abi.h"

namespace tunefarm::deploy::cuda {
namespace {

std::string Dims(const int64_t (&d)[3]) {
  return "[" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + "]";
}

Status CheckRange(size_t offset, size_t bytes, size_t size) {
  if (offset <= size && bytes <= size - offset) return Status();
  return Status(StatusCode::kInvalidArgument, "copy of " + std::to_string(bytes) + " bytes at " +
                                                  std::to_string(offset) + " beyond a GPU buffer of " +
                                                  std::to_string(size));
}

}  // namespace

Result<std::unique_ptr<Context>> Context::Open(std::shared_ptr<const DriverApi> api, int ordinal) {
  int count = 0;
  if (api->cuDeviceGetCount(&count) != kSuccess) count = 0;
  if (ordinal < 0 || ordinal >= count) {
    return Status(StatusCode::kNotFound,
                  "no CUDA device " + std::to_string(ordinal) + " (the driver sees " + std::to_string(count) + ")");
  }
  CUdevice device = 0;
  if (const CUresult r = api->cuDeviceGet(&device, ordinal); r != kSuccess) {
    return Status(StatusCode::kLoadFailed, "cuDeviceGet(" + std::to_string(ordinal) + "): " + api->Describe(r));
  }
  CUcontext context = nullptr;
  if (const CUresult r = api->cuDevicePrimaryCtxRetain(&context, device); r != kSuccess) {
    return Status(StatusCode::kLoadFailed,
                  "cannot open a context on CUDA device " + std::to_string(ordinal) + ": " + api->Describe(r));
  }
  return std::unique_ptr<Context>(new Context(std::move(api), ordinal, device, context));
}

Context::~Context() { api_->cuDevicePrimaryCtxRelease(device_); }

Status Context::MakeCurrent() const { return Check(api_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"); }

ScopedCurrent::ScopedCurrent(const Context& context) : context_(context) {
  status_ = context_.Check(context_.api().cuCtxPushCurrent(context_.handle()), "cuCtxPushCurrent");
}

ScopedCurrent::~ScopedCurrent() {
  CUcontext popped = nullptr;
  if (status_.ok()) context_.api().cuCtxPopCurrent(&popped);
}

int Context::Get(Attribute which) const {
  int value = 0;
  return api_->cuDeviceGetAttribute(&value, which, device_) == kSuccess ? value : 0;
}

Status Context::Check(CUresult result, const std::string& what) const {
  if (result == kSuccess) return Status();
  const std::string message = what + ": " + api_->Describe(result);
  if (result == kErrorOutOfMemory) return Status(StatusCode::kOutOfMemory, message);
  return Status::KernelError(result, message);
}

Result<DeviceBuffer> DeviceBuffer::Allocate(const Context& context, size_t bytes) {
  DeviceBuffer buffer;
  buffer.context_ = &context;
  buffer.size_ = bytes;
  if (bytes == 0) return buffer;
  if (Status s = context.Check(context.api().cuMemAlloc(&buffer.ptr_, bytes),
                               "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
      !s.ok()) {
    buffer.ptr_ = 0;
    return s;
  }
  return buffer;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != 0) context_->api().cuMemFree(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != 0) context_->api().cuMemFree(ptr_);
    context_ = other.context_;
    ptr_ = other.ptr_;
    size_ = other.size_;
    other.ptr_ = 0;
    other.size_ = 0;
  }
  return *this;
}

Status DeviceBuffer::UploadAt(size_t offset, const void* host, size_t bytes) const {
  if (bytes == 0) return Status();
  if (Status s = CheckRange(offset, bytes, size_); !s.ok()) return s;
  return context_->Check(context_->api().cuMemcpyHtoD(ptr_ + offset, host, bytes), "copying to the GPU");
}

Status DeviceBuffer::DownloadAt(size_t offset, void* host, size_t bytes) const {
  if (bytes == 0) return Status();
  if (Status s = CheckRange(offset, bytes, size_); !s.ok()) return s;
  return context_->Check(context_->api().cuMemcpyDtoH(host, ptr_ + offset, bytes), "copying from the GPU");
}

Status DeviceBuffer::Fill(uint8_t byte) const {
  if (size_ == 0) return Status();
  return context_->Check(context_->api().cuMemsetD8(ptr_, byte, size_), "cuMemsetD8");
}

Result<std::unique_ptr<Module>> Module::Load(const Context& context, const std::string& ptx) {
  char log[8192] = {};
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  void* values[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof log - 1))};
  CUmodule module = nullptr;
  // The text must be NUL-terminated: std::string's c_str() is.
  const CUresult r = context.api().cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
  if (r != kSuccess) {
    std::string message = "the CUDA driver did not load the PTX: " + context.api().Describe(r);
    if (log[0] != '\0') message += ": " + std::string(log);
    Status status(StatusCode::kLoadFailed, message);
    if (LosesContext(r)) status = Status::KernelError(r, message);
    return status;
  }
  return std::unique_ptr<Module>(new Module(context, module));
}

Module::~Module() { context_.api().cuModuleUnload(module_); }

Result<CUfunction> Module::Function(const std::string& name) const {
  CUfunction function = nullptr;
  const CUresult r = context_.api().cuModuleGetFunction(&function, module_, name.c_str());
  if (r != kSuccess) return Status(StatusCode::kNotFound, "no kernel " + name + " in the module: " + context_.api().Describe(r));
  return function;
}

Result<EntryLaunches> EntryLaunches::Bind(const Context& context, const Module& module, const EntryInfo& entry) {
  if (entry.launches.empty()) {
    return Status(StatusCode::kBadMetadata, "entry \"" + entry.name + "\" lists no GPU launches");
  }
  const int64_t max_threads = context.Get(kMaxThreadsPerBlock);
  const int64_t max_block[3] = {context.Get(kMaxBlockDimX), context.Get(kMaxBlockDimY), context.Get(kMaxBlockDimZ)};
  const int64_t max_grid[3] = {context.Get(kMaxGridDimX), context.Get(kMaxGridDimY), context.Get(kMaxGridDimZ)};
  const int64_t max_shared = context.Get(kMaxSharedMemoryPerBlock);
  EntryLaunches bound;
  bound.context_ = &context;
  bound.entry_ = entry.name;
  for (const LaunchInfo& launch : entry.launches) {
    const std::string what = "launch " + launch.kernel + " of entry \"" + entry.name + "\"";
    const int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
    if (max_threads > 0 && threads > max_threads) {
      return Status(StatusCode::kInvalidArgument, what + ": block " + Dims(launch.block) + " has " +
                                                      std::to_string(threads) + " threads, this GPU allows " +
                                                      std::to_string(max_threads));
    }
    for (int d = 0; d < 3; ++d) {
      if (max_block[d] > 0 && launch.block[d] > max_block[d]) {
        return Status(StatusCode::kInvalidArgument, what + ": block " + Dims(launch.block) + " exceeds this GPU's " +
                                                        Dims(max_block));
      }
      if (max_grid[d] > 0 && launch.grid[d] > max_grid[d]) {
        return Status(StatusCode::kInvalidArgument, what + ": grid " + Dims(launch.grid) + " exceeds this GPU's " +
                                                        Dims(max_grid));
      }
    }
    if (max_shared > 0 && launch.shared_bytes > max_shared) {
      return Status(StatusCode::kInvalidArgument, what + ": " + std::to_string(launch.shared_bytes) +
                                                      " bytes of shared memory, this GPU allows " +
                                                      std::to_string(max_shared) + " per block");
    }
    Result<CUfunction> function = module.Function(launch.kernel);
    if (!function.ok()) return function.status();
    // The JIT decided the kernel's registers: a block too large for them cannot launch
    // (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); say so here, by name.
    int fits = 0, registers = 0;
    if (context.api().cuFuncGetAttribute(&fits, kFuncMaxThreadsPerBlock, *function) == kSuccess && fits > 0 &&
        threads > fits) {
      context.api().cuFuncGetAttribute(&registers, kFuncNumRegs, *function);
      return Status(StatusCode::kInvalidArgument, what + ": block " + Dims(launch.block) + " has " +
                                                      std::to_string(threads) + " threads, but the kernel uses " +
                                                      std::to_string(registers) + " registers per thread, so at most " +
                                                      std::to_string(fits) + " fit a block");
    }
    bound.launches_.push_back(launch);
    bound.functions_.push_back(*function);
  }
  return bound;
}

Status EntryLaunches::Launch(const std::vector<CUdeviceptr>& args, CUdeviceptr workspace) const {
  // The kernels take the entry's arguments as pointers, then the workspace pointer. They are
  // compiled for the ABI's alignment (128-bit accesses rely on it): a pointer off it would be an
  // illegal address inside the kernel, so it is refused here, by name.
  std::vector<CUdeviceptr> values = args;
  values.push_back(workspace);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] % TUNEFARM_BUFFER_ALIGNMENT == 0) continue;
    std::ostringstream address;
    address << std::hex << values[i];
    return Status(StatusCode::kInvalidArgument,
                  "entry \"" + entry_ + "\": " + (i < args.size() ? "argument " + std::to_string(i) : "the workspace") +
                      " at device address 0x" + address.str() + " is not " + std::to_string(TUNEFARM_BUFFER_ALIGNMENT) +
                      "-byte aligned, as the kernel ABI requires (docs/kernel-abi.md)");
  }
  std::vector<void*> params(values.size());
  for (size_t i = 0; i < values.size(); ++i) params[i] = &values[i];
  for (size_t i = 0; i < launches_.size(); ++i) {
    const LaunchInfo& l = launches_[i];
    const CUresult r = context_->api().cuLaunchKernel(
        functions_[i], static_cast<unsigned>(l.grid[0]), static_cast<unsigned>(l.grid[1]),
        static_cast<unsigned>(l.grid[2]), static_cast<unsigned>(l.block[0]), static_cast<unsigned>(l.block[1]),
        static_cast<unsigned>(l.block[2]), 0, nullptr, params.data(), nullptr);
    if (r != kSuccess) {
      return context_->Check(r, "launching " + l.kernel + " (grid " + Dims(l.grid) + ", block " + Dims(l.block) +
                                    ") of entry \"" + entry_ + "\"");
    }
  }
  return Status();
}

Status Synchronize(const Context& context, const std::string& what) {
  return context.Check(context.api().cuCtxSynchronize(), what);
}

Result<std::unique_ptr<EventTimer>> EventTimer::Create(const Context& context) {
  std::unique_ptr<EventTimer> timer(new EventTimer(context));
  if (Status s = context.Check(context.api().cuEventCreate(&timer->start_, 0), "cuEventCreate"); !s.ok()) return s;
  if (Status s = context.Check(context.api().cuEventCreate(&timer->stop_, 0), "cuEventCreate"); !s.ok()) return s;
  return timer;
}

EventTimer::~EventTimer() {
  if (start_ != nullptr) context_.api().cuEventDestroy(start_);
  if (stop_ != nullptr) context_.api().cuEventDestroy(stop_);
}

Status EventTimer::Start() { return context_.Check(context_.api().cuEventRecord(start_, nullptr), "cuEventRecord"); }

Result<double> EventTimer::StopSeconds() {
  if (Status s = context_.Check(context_.api().cuEventRecord(stop_, nullptr), "cuEventRecord"); !s.ok()) return s;
  if (Status s = context_.Check(context_.api().cuEventSynchronize(stop_), "running the kernels"); !s.ok()) return s;
  float ms = 0;
  if (Status s = context_.Check(context_.api().cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime"); !s.ok()) {
    return s;
  }
  return static_cast<double>(ms) / 1e3;
}

}  // namespace tunefarm::deploy::cuda
