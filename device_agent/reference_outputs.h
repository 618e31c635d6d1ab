// The reference's outputs saved beside the reference kernel, so that the next batch's helper
// reads them instead of running the reference again. The reference is the task's unscheduled
// kernel: for GEMM 1024^3 it ran 6 s in every batch of 8 candidates, more than the candidates.
//
// One file per reference kernel (a new seed replaces it), written by the helper after the
// reference ran and before any candidate did (a temporary file renamed into place), deleted with
// the kernel by the agent's cache. Layout, little-endian: "TFREFO01", the seed (u64), the
// argument count (u64), each argument's output bytes (u64; 0 for inputs), then the outputs'
// bytes in argument order. A file that does not match the seed or the reference's signature
// exactly is ignored (the reference runs, and the file is written again).
#ifndef TUNEFARM_DEVICE_AGENT_REFERENCE_OUTPUTS_H_
#define TUNEFARM_DEVICE_AGENT_REFERENCE_OUTPUTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deploy/kernel_metadata.h"
#include "device_agent/frozen_buffer.h"

namespace tunefarm::agent {

// `outputs` has one entry per argument of `args` (empty for inputs). Failures are ignored: the
// file is only a saving.
void SaveReferenceOutputs(const std::string& path, uint64_t seed, const std::vector<deploy::ArgInfo>& args,
                          const std::vector<FrozenBuffer>& outputs);

// The outputs saved for `seed` and exactly this signature; nullopt when there are none (or they
// do not fit the address-space limit).
std::optional<std::vector<FrozenBuffer>> LoadReferenceOutputs(const std::string& path, uint64_t seed,
                                                              const std::vector<deploy::ArgInfo>& args);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_REFERENCE_OUTPUTS_H_
