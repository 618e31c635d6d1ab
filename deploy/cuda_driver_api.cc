#include "deploy/cuda_driver_api.h"

#include <dlfcn.h>

#include <type_traits>

namespace tunefarm::deploy::cuda {

std::string DriverApi::Describe(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName == nullptr || cuGetErrorName(result, &name) != kSuccess || name == nullptr) {
    return "CUresult " + std::to_string(result);
  }
  std::string out = name;
  if (cuGetErrorString != nullptr && cuGetErrorString(result, &text) == kSuccess && text != nullptr) {
    out += std::string(" (") + text + ")";
  }
  return out;
}

Result<std::shared_ptr<const DriverApi>> LoadDriverApi(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status(StatusCode::kLoadFailed, "no CUDA driver: " + std::string(why != nullptr ? why : library));
  }
  auto api = std::make_shared<DriverApi>();
  std::string missing;
  auto resolve = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    if (fn == nullptr && missing.empty()) missing = name;
  };
  resolve(api->cuInit, "cuInit");
  resolve(api->cuDeviceGetCount, "cuDeviceGetCount");
  resolve(api->cuDeviceGet, "cuDeviceGet");
  resolve(api->cuDeviceGetName, "cuDeviceGetName");
  resolve(api->cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  resolve(api->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(api->cuGetErrorName, "cuGetErrorName");
  resolve(api->cuGetErrorString, "cuGetErrorString");
  resolve(api->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(api->cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  resolve(api->cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(api->cuCtxPushCurrent, "cuCtxPushCurrent_v2");
  resolve(api->cuCtxPopCurrent, "cuCtxPopCurrent_v2");
  resolve(api->cuCtxSynchronize, "cuCtxSynchronize");
  resolve(api->cuModuleLoadDataEx, "cuModuleLoadDataEx");
  resolve(api->cuModuleUnload, "cuModuleUnload");
  resolve(api->cuModuleGetFunction, "cuModuleGetFunction");
  resolve(api->cuFuncGetAttribute, "cuFuncGetAttribute");
  resolve(api->cuMemAlloc, "cuMemAlloc_v2");
  resolve(api->cuMemFree, "cuMemFree_v2");
  resolve(api->cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  resolve(api->cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  resolve(api->cuMemsetD8, "cuMemsetD8_v2");
  resolve(api->cuLaunchKernel, "cuLaunchKernel");
  resolve(api->cuEventCreate, "cuEventCreate");
  resolve(api->cuEventRecord, "cuEventRecord");
  resolve(api->cuEventSynchronize, "cuEventSynchronize");
  resolve(api->cuEventElapsedTime, "cuEventElapsedTime");
  resolve(api->cuEventDestroy, "cuEventDestroy_v2");
  if (!missing.empty()) {
    return Status(StatusCode::kLoadFailed, "CUDA driver " + library + " lacks " + missing + " (too old a driver?)");
  }
  if (const CUresult r = api->cuInit(0); r != kSuccess) {
    return Status(StatusCode::kLoadFailed, "the CUDA driver did not initialize: " + api->Describe(r));
  }
  return std::shared_ptr<const DriverApi>(std::move(api));
}

bool LosesContext(CUresult result) {
  switch (result) {
    case 700:  // CUDA_ERROR_ILLEGAL_ADDRESS
    case 702:  // CUDA_ERROR_LAUNCH_TIMEOUT
    case 709:  // CUDA_ERROR_CONTEXT_IS_DESTROYED
    case 710:  // CUDA_ERROR_ASSERT (a device-side trap)
    case 714:  // CUDA_ERROR_HARDWARE_STACK_ERROR
    case 715:  // CUDA_ERROR_ILLEGAL_INSTRUCTION
    case 716:  // CUDA_ERROR_MISALIGNED_ADDRESS
    case 717:  // CUDA_ERROR_INVALID_ADDRESS_SPACE
    case 718:  // CUDA_ERROR_INVALID_PC
    case 719:  // CUDA_ERROR_LAUNCH_FAILED
    case 226:  // CUDA_ERROR_CONTAINED (a contained error: the process must be relaunched)
    case 721:  // CUDA_ERROR_TENSOR_MEMORY_LEAK
    case 810:  // CUDA_ERROR_MPS_CLIENT_TERMINATED
    case 911:  // CUDA_ERROR_EXTERNAL_DEVICE
    case 999:  // CUDA_ERROR_UNKNOWN
      return true;
    default:
      return false;
  }
}

}  // namespace tunefarm::deploy::cuda
