// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and the few entry points the
// agent needs, so that the agent builds without the CUDA toolkit and runs where no driver
// exists (it then says "no CUDA driver" instead of failing to start). The values of the
// driver API's enums used here are the ones cuda.h fixes; no CUDA header is included.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::agent {

class CudaDriver {
 public:
  // Loads the driver library (`library`, normally libcuda.so.1) and calls cuInit. No driver
  // is Unavailable ("no CUDA driver: libcuda.so.1: cannot open shared object file: ...");
  // a driver without a usable GPU is FailedPrecondition with the driver's own error name.
  static absl::StatusOr<std::unique_ptr<CudaDriver>> Load(const std::string& library = "libcuda.so.1");
  ~CudaDriver();
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  int DeviceCount() const;
  // The facts of device `ordinal`: name, compute capability, memory, SMs, clock and the
  // per-block limits a launch must fit (NotFound for an ordinal the driver does not have).
  absl::StatusOr<v1::GpuFacts> Facts(int ordinal) const;

  struct Api;  // the resolved entry points

 private:
  CudaDriver(void* handle, std::unique_ptr<Api> api);
  void* handle_;
  std::unique_ptr<Api> api_;
};

// "cuda:N" -> N; -1 for anything else.
int ParseCudaDevice(const std::string& device);

}  // namespace tunefarm::agent
