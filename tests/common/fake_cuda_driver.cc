// A test double of the CUDA driver library (libcuda.so.1) for CI, which has no GPU: the entry
// points the agent's GPU measure session calls, with device memory in host memory. It cannot run
// PTX, so it says nothing about GPU numerics or speed (docs/gpu.md); it lets the tests check
// what the session does around a kernel: which launches it makes with which shapes, how it
// copies, compares and times, and what it does when the driver reports an error.
//
// A kernel's behaviour follows its name (tests write these PTX libraries by hand):
//   *copy*   copies its first argument into its second (min of their sizes), like y = x;
//   *fault*  makes the context lost (CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronization,
//            and from every call after it), as an out-of-bounds store does;
//   *hang*   makes the next synchronization block forever;
//   *slow*   takes 2 ms of GPU time in the events' clock;
//   *regs*   uses 128 registers per thread, so at most 512 threads fit a block;
//   anything else writes nothing.
// A module whose text contains "// fake-cuda-log: PATH" appends one line per launch to PATH:
// "<kernel> grid=X,Y,Z block=X,Y,Z", after a line "load" when it is loaded; other modules log to
// $TUNEFARM_FAKE_CUDA_LOG when it is set. The device has compute capability 9.0, or
// $TUNEFARM_FAKE_CUDA_CC's (e.g. 80 for 8.0). As the real driver, a call that works in the
// current context fails with CUDA_ERROR_INVALID_CONTEXT on a thread that made none current.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

struct Module {
  std::string text;
  std::string log_path;
};
struct Function {
  Module* module;
  std::string name;
};
struct Event {
  double gpu_ms = 0;
};

std::mutex mu;
std::map<CUdeviceptr, size_t> allocations;
CUresult lost = 0;       // sticky once a kernel faulted
bool hang_next = false;
double gpu_clock_ms = 0; // advances by the launches' simulated time

// Each thread's stack of contexts, its top the current one (cuCtxSetCurrent replaces the top,
// cuCtxPushCurrent / cuCtxPopCurrent push and pop).
thread_local std::vector<void*> contexts;
void* Current() { return contexts.empty() ? nullptr : contexts.back(); }
constexpr CUresult kInvalidContext = 201;  // CUDA_ERROR_INVALID_CONTEXT

bool Contains(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// 90 (an H100's 9.0), or $TUNEFARM_FAKE_CUDA_CC (e.g. 80), for a test of a GPU older than its
// kernels.
int ComputeCapability() {
  const char* cc = std::getenv("TUNEFARM_FAKE_CUDA_CC");
  return cc != nullptr ? std::atoi(cc) : 90;
}
}  // namespace

extern "C" {

CUresult cuInit(unsigned) { return 0; }
CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return 0;
}
CUresult cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? 0 : 101;  // CUDA_ERROR_INVALID_DEVICE
}
CUresult cuDeviceGetName(char* name, int size, int) {
  std::snprintf(name, static_cast<size_t>(size), "tunefarm fake GPU (test double)");
  return 0;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int) {
  *bytes = size_t{80} << 30;
  return 0;
}
CUresult cuDeviceGetAttribute(int* value, int attribute, int) {
  switch (attribute) {
    case 1: *value = 1024; break;             // max threads per block
    case 2: case 3: *value = 1024; break;     // max block x, y
    case 4: *value = 64; break;               // max block z
    case 5: *value = 2147483647; break;       // max grid x
    case 6: case 7: *value = 65535; break;    // max grid y, z
    case 8: *value = 49152; break;            // shared memory per block
    case 12: *value = 65536; break;           // registers per block
    case 13: *value = 1980000; break;         // clock, kHz
    case 16: *value = 132; break;             // SMs
    case 38: *value = 1 << 20; break;         // L2 bytes
    case 75: *value = ComputeCapability() / 10; break;  // major
    case 76: *value = ComputeCapability() % 10; break;  // minor
    default: *value = 0;
  }
  return 0;
}
CUresult cuGetErrorName(CUresult result, const char** name) {
  switch (result) {
    case 0: *name = "CUDA_SUCCESS"; return 0;
    case 2: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
    case 218: *name = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 201: *name = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
    case 500: *name = "CUDA_ERROR_NOT_FOUND"; return 0;
    case 700: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
    default: return 1;
  }
}
CUresult cuGetErrorString(CUresult result, const char** text) {
  if (result == 700) *text = "an illegal memory access was encountered";
  else if (result == 218) *text = "a PTX JIT compilation failed";
  else return cuGetErrorName(result, text);
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void** context, int) {
  static int token;
  *context = &token;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return 0; }
CUresult cuCtxSetCurrent(void* context) {
  if (contexts.empty()) contexts.push_back(context);
  else contexts.back() = context;
  return 0;
}
CUresult cuCtxPushCurrent_v2(void* context) {
  contexts.push_back(context);
  return 0;
}
CUresult cuCtxPopCurrent_v2(void** context) {
  if (contexts.empty()) return kInvalidContext;
  if (context != nullptr) *context = contexts.back();
  contexts.pop_back();
  return 0;
}
// Not called by tunefarm: the tests ask what a thread has current after a call.
CUresult cuCtxGetCurrent(void** context) {
  *context = Current();
  return 0;
}

CUresult cuCtxSynchronize() {
  if (Current() == nullptr) return kInvalidContext;
  std::unique_lock<std::mutex> lock(mu);
  if (hang_next) {
    lock.unlock();
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  return lost;
}

CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned count, int* options, void** values) {
  if (Current() == nullptr) return kInvalidContext;
  std::lock_guard<std::mutex> lock(mu);
  if (lost) return lost;
  const std::string text = static_cast<const char*>(image);
  if (!Contains(text, ".version") || !Contains(text, ".entry")) {
    for (unsigned i = 0; i < count; ++i) {
      if (options[i] == 5) std::strcpy(static_cast<char*>(values[i]), "fake ptxas: line 1; error: not PTX");
    }
    return 218;
  }
  auto* m = new Module{text, ""};
  if (const size_t at = text.find("// fake-cuda-log: "); at != std::string::npos) {
    const size_t begin = at + std::strlen("// fake-cuda-log: ");
    m->log_path = text.substr(begin, text.find('\n', begin) - begin);
  } else if (const char* log = std::getenv("TUNEFARM_FAKE_CUDA_LOG"); log != nullptr) {
    m->log_path = log;
  }
  if (!m->log_path.empty()) {
    if (FILE* log = std::fopen(m->log_path.c_str(), "a")) {
      std::fprintf(log, "load\n");
      std::fclose(log);
    }
  }
  *module = m;
  return 0;
}
CUresult cuModuleUnload(void* module) {
  if (Current() == nullptr) return kInvalidContext;
  delete static_cast<Module*>(module);
  return 0;
}
CUresult cuModuleGetFunction(void** function, void* module, const char* name) {
  auto* m = static_cast<Module*>(module);
  if (!Contains(m->text, (std::string(".entry ") + name + "(").c_str())) return 500;
  *function = new Function{m, name};  // leaked with the module: a test's handful
  return 0;
}

// A kernel whose name contains "regs" uses 128 registers per thread: at most 512 threads a block.
CUresult cuFuncGetAttribute(int* value, int attribute, void* function) {
  const bool heavy = Contains(static_cast<Function*>(function)->name, "regs");
  if (attribute == 0) *value = heavy ? 512 : 1024;  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  else if (attribute == 4) *value = heavy ? 128 : 32;  // CU_FUNC_ATTRIBUTE_NUM_REGS
  else *value = 0;
  return 0;
}

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
  if (Current() == nullptr) return kInvalidContext;
  std::lock_guard<std::mutex> lock(mu);
  if (lost) return lost;
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (p == nullptr) return 2;
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  allocations[*ptr] = bytes;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  if (Current() == nullptr) return kInvalidContext;
  std::lock_guard<std::mutex> lock(mu);
  allocations.erase(ptr);
  std::free(reinterpret_cast<void*>(ptr));
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  if (Current() == nullptr) return kInvalidContext;
  if (lost) return lost;
  std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  if (Current() == nullptr) return kInvalidContext;
  if (lost) return lost;
  std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  return 0;
}
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t bytes) {
  if (Current() == nullptr) return kInvalidContext;
  if (lost) return lost;
  std::memset(reinterpret_cast<void*>(dst), value, bytes);
  return 0;
}

CUresult cuLaunchKernel(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned, void*, void** params, void**) {
  if (Current() == nullptr) return kInvalidContext;
  std::lock_guard<std::mutex> lock(mu);
  if (lost) return lost;
  auto* f = static_cast<Function*>(function);
  if (!f->module->log_path.empty()) {
    if (FILE* log = std::fopen(f->module->log_path.c_str(), "a")) {
      std::fprintf(log, "%s grid=%u,%u,%u block=%u,%u,%u\n", f->name.c_str(), gx, gy, gz, bx, by, bz);
      std::fclose(log);
    }
  }
  if (Contains(f->name, "copy")) {
    const CUdeviceptr from = *static_cast<CUdeviceptr*>(params[0]);
    const CUdeviceptr to = *static_cast<CUdeviceptr*>(params[1]);
    std::memcpy(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from),
                std::min(allocations[from], allocations[to]));
  }
  if (Contains(f->name, "fault")) lost = 700;
  if (Contains(f->name, "hang")) hang_next = true;
  gpu_clock_ms += Contains(f->name, "slow") ? 2.0 : 0.001;
  return 0;
}

CUresult cuEventCreate(void** event, unsigned) {
  if (Current() == nullptr) return kInvalidContext;
  *event = new Event;
  return 0;
}
CUresult cuEventRecord(void* event, void*) {
  if (Current() == nullptr) return kInvalidContext;
  std::lock_guard<std::mutex> lock(mu);
  if (lost) return lost;
  static_cast<Event*>(event)->gpu_ms = gpu_clock_ms;
  return 0;
}
CUresult cuEventSynchronize(void*) { return cuCtxSynchronize(); }
CUresult cuEventElapsedTime(float* ms, void* start, void* stop) {
  *ms = static_cast<float>(static_cast<Event*>(stop)->gpu_ms - static_cast<Event*>(start)->gpu_ms);
  return 0;
}
CUresult cuEventDestroy_v2(void* event) {
  delete static_cast<Event*>(event);
  return 0;
}

}  // extern "C"
