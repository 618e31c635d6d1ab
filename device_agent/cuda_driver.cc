#include "device_agent/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>

#include "common/strings.h"

namespace tunefarm::agent {
namespace {

using CUresult = int;
using CUdevice = int;
constexpr CUresult kCudaSuccess = 0;

// CUdevice_attribute values (cuda.h).
constexpr int kMaxThreadsPerBlock = 1;
constexpr int kMaxSharedMemoryPerBlock = 8;
constexpr int kMaxRegistersPerBlock = 12;
constexpr int kClockRateKhz = 13;
constexpr int kMultiprocessorCount = 16;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;

}  // namespace

struct CudaDriver::Api {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;

  std::string ErrorName(CUresult r) const {
    const char* name = nullptr;
    if (cuGetErrorName != nullptr && cuGetErrorName(r, &name) == kCudaSuccess && name != nullptr) return name;
    return StrCat("CUresult ", r);
  }
};

CudaDriver::CudaDriver(void* handle, std::unique_ptr<Api> api) : handle_(handle), api_(std::move(api)) {}

CudaDriver::~CudaDriver() {
  if (handle_ != nullptr) dlclose(handle_);
}

absl::StatusOr<std::unique_ptr<CudaDriver>> CudaDriver::Load(const std::string& library) {
  // RTLD_NODELETE: once cuInit has run, the driver has threads and exit handlers of its own,
  // so its code must stay mapped after dlclose.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::UnavailableError(StrCat("no CUDA driver: ", why != nullptr ? why : library));
  }
  auto api = std::make_unique<Api>();
  std::string missing;
  auto resolve = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    if (fn == nullptr) missing = name;
  };
  resolve(api->cuInit, "cuInit");
  resolve(api->cuDeviceGetCount, "cuDeviceGetCount");
  resolve(api->cuDeviceGet, "cuDeviceGet");
  resolve(api->cuDeviceGetName, "cuDeviceGetName");
  resolve(api->cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  resolve(api->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(api->cuGetErrorName, "cuGetErrorName");
  if (!missing.empty()) {
    dlclose(handle);
    return absl::FailedPreconditionError(StrCat("CUDA driver ", library, " lacks ", missing, " (too old a driver?)"));
  }
  if (CUresult r = api->cuInit(0); r != kCudaSuccess) {
    const std::string name = api->ErrorName(r);
    dlclose(handle);
    return absl::FailedPreconditionError(StrCat("the CUDA driver did not initialize: ", name));
  }
  return std::unique_ptr<CudaDriver>(new CudaDriver(handle, std::move(api)));
}

int CudaDriver::DeviceCount() const {
  int count = 0;
  return api_->cuDeviceGetCount(&count) == kCudaSuccess ? count : 0;
}

absl::StatusOr<v1::GpuFacts> CudaDriver::Facts(int ordinal) const {
  const int count = DeviceCount();
  if (ordinal < 0 || ordinal >= count) {
    return absl::NotFoundError(StrCat("no CUDA device ", ordinal, " (the driver sees ", count, ")"));
  }
  CUdevice device = 0;
  if (CUresult r = api_->cuDeviceGet(&device, ordinal); r != kCudaSuccess) {
    return absl::FailedPreconditionError(StrCat("cuDeviceGet(", ordinal, "): ", api_->ErrorName(r)));
  }
  char name[256] = {};
  size_t memory = 0;
  auto attribute = [&](int which) {
    int value = 0;
    return api_->cuDeviceGetAttribute(&value, which, device) == kCudaSuccess ? value : 0;
  };
  if (api_->cuDeviceGetName(name, sizeof name - 1, device) != kCudaSuccess ||
      api_->cuDeviceTotalMem(&memory, device) != kCudaSuccess) {
    return absl::FailedPreconditionError(StrCat("CUDA device ", ordinal, " does not answer its name or memory"));
  }
  v1::GpuFacts facts;
  facts.set_name(name);
  facts.set_compute_capability(StrCat(attribute(kComputeCapabilityMajor), ".", attribute(kComputeCapabilityMinor)));
  facts.set_memory_bytes(static_cast<int64_t>(memory));
  facts.set_multiprocessors(attribute(kMultiprocessorCount));
  facts.set_max_threads_per_block(attribute(kMaxThreadsPerBlock));
  facts.set_max_shared_memory_per_block(attribute(kMaxSharedMemoryPerBlock));
  facts.set_max_registers_per_block(attribute(kMaxRegistersPerBlock));
  facts.set_clock_khz(attribute(kClockRateKhz));
  facts.set_ordinal(ordinal);
  return facts;
}

int ParseCudaDevice(const std::string& device) {
  if (!StartsWith(device, "cuda:") || device.size() == 5 || device.size() > 8) return -1;
  for (size_t i = 5; i < device.size(); ++i) {
    if (device[i] < '0' || device[i] > '9') return -1;
  }
  return std::atoi(device.c_str() + 5);
}

}  // namespace tunefarm::agent
