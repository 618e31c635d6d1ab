#include "device_agent/cuda_driver.h"

#include <cstdlib>

#include "common/strings.h"
#include "deploy/cuda_driver_api.h"

namespace tunefarm::agent {

absl::StatusOr<v1::GpuFacts> ReadGpuFacts(const std::string& library, int ordinal) {
  namespace cuda = deploy::cuda;
  deploy::Result<std::shared_ptr<const cuda::DriverApi>> loaded = cuda::LoadDriverApi(library);
  if (!loaded.ok()) {
    const std::string& message = loaded.status().message();
    return StartsWith(message, "no CUDA driver") ? absl::UnavailableError(message)
                                                 : absl::FailedPreconditionError(message);
  }
  const cuda::DriverApi& api = **loaded;
  int count = 0;
  if (api.cuDeviceGetCount(&count) != cuda::kSuccess) count = 0;
  if (ordinal < 0 || ordinal >= count) {
    return absl::NotFoundError(StrCat("no CUDA device ", ordinal, " (the driver sees ", count, ")"));
  }
  cuda::CUdevice device = 0;
  if (cuda::CUresult r = api.cuDeviceGet(&device, ordinal); r != cuda::kSuccess) {
    return absl::FailedPreconditionError(StrCat("cuDeviceGet(", ordinal, "): ", api.Describe(r)));
  }
  char name[256] = {};
  size_t memory = 0;
  auto attribute = [&](cuda::Attribute which) {
    int value = 0;
    return api.cuDeviceGetAttribute(&value, which, device) == cuda::kSuccess ? value : 0;
  };
  if (api.cuDeviceGetName(name, sizeof name - 1, device) != cuda::kSuccess ||
      api.cuDeviceTotalMem(&memory, device) != cuda::kSuccess) {
    return absl::FailedPreconditionError(StrCat("CUDA device ", ordinal, " does not answer its name or memory"));
  }
  v1::GpuFacts facts;
  facts.set_name(name);
  facts.set_compute_capability(
      StrCat(attribute(cuda::kComputeCapabilityMajor), ".", attribute(cuda::kComputeCapabilityMinor)));
  facts.set_memory_bytes(static_cast<int64_t>(memory));
  facts.set_multiprocessors(attribute(cuda::kMultiprocessorCount));
  facts.set_max_threads_per_block(attribute(cuda::kMaxThreadsPerBlock));
  facts.set_max_shared_memory_per_block(attribute(cuda::kMaxSharedMemoryPerBlock));
  facts.set_max_registers_per_block(attribute(cuda::kMaxRegistersPerBlock));
  facts.set_clock_khz(attribute(cuda::kClockRateKhz));
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
