// What an agent's kernels run on: this host's CPU (shared objects, the default), or one CUDA GPU
// (PTX libraries, docs/gpu.md). Decided by `--device` at start; the upload check, the helper's
// session and the agent's facts follow it.
#ifndef TUNEFARM_DEVICE_AGENT_AGENT_DEVICE_H_
#define TUNEFARM_DEVICE_AGENT_AGENT_DEVICE_H_

#include <cstdint>
#include <string>

namespace tunefarm::agent {

struct AgentDevice {
  std::string cuda;                          // "cuda:N", or empty for the CPU
  std::string cuda_driver = "libcuda.so.1";  // the driver library the helper opens
  int32_t sm = 0;                            // the GPU's compute capability, major * 10 + minor

  bool gpu() const { return !cuda.empty(); }
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_AGENT_DEVICE_H_
