// The CUDA driver API, loaded at run time with dlopen: the entry points that the GPU agent and
// the runtime's CUDA component call, resolved from libcuda.so.1 (or a library named by the
// caller). Nothing here needs the CUDA toolkit to build, and where no driver exists loading
// fails with a clear error instead of the program failing to start. The handle types and enum
// values are the ones cuda.h fixes; no CUDA header is included.
#ifndef TUNEFARM_DEPLOY_CUDA_DRIVER_API_H_
#define TUNEFARM_DEPLOY_CUDA_DRIVER_API_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "deploy/status.h"

namespace tunefarm::deploy::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;

inline constexpr CUresult kSuccess = 0;
inline constexpr CUresult kErrorOutOfMemory = 2;
inline constexpr CUresult kErrorNotFound = 500;
inline constexpr CUresult kErrorIllegalAddress = 700;

// CUdevice_attribute values.
enum Attribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxBlockDimX = 2,
  kMaxBlockDimY = 3,
  kMaxBlockDimZ = 4,
  kMaxGridDimX = 5,
  kMaxGridDimY = 6,
  kMaxGridDimZ = 7,
  kMaxSharedMemoryPerBlock = 8,
  kMaxRegistersPerBlock = 12,
  kClockRateKhz = 13,
  kMultiprocessorCount = 16,
  kL2CacheSize = 38,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
};

// CUfunction_attribute values: what a kernel compiled to, read after the JIT.
inline constexpr int kFuncMaxThreadsPerBlock = 0;
inline constexpr int kFuncNumRegs = 4;

// CUjit_option values used with cuModuleLoadDataEx.
inline constexpr int kJitErrorLogBuffer = 5;
inline constexpr int kJitErrorLogBufferSizeBytes = 6;

struct DriverApi {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxPushCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxPopCurrent)(CUcontext*) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuFuncGetAttribute)(int*, int, CUfunction) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;

  // "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)", or "CUresult N".
  std::string Describe(CUresult result) const;
};

// dlopen(library) (normally "libcuda.so.1"), every entry point above, then cuInit(0). kLoadFailed
// "no CUDA driver: <dlerror>" when the library cannot be opened; kLoadFailed naming the missing
// symbol (an old driver) or cuInit's error otherwise. The library stays mapped for the life of
// the process: once cuInit has run, the driver has threads and exit handlers of its own.
Result<std::shared_ptr<const DriverApi>> LoadDriverApi(const std::string& library = "libcuda.so.1");

// True for the errors after which a CUDA context cannot be used any more (an illegal address,
// a launch failure or timeout, a trap): everything on it fails from then on, and only a new
// process gets a working context back.
bool LosesContext(CUresult result);

}  // namespace tunefarm::deploy::cuda

#endif  // TUNEFARM_DEPLOY_CUDA_DRIVER_API_H_
