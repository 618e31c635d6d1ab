// An agent's GPU as the CUDA driver describes it (`--device cuda:N`): the facts the agent
// reports to the tracker, read through the driver API loaded at run time
// (deploy/cuda_driver_api.h), so that the agent builds without the CUDA toolkit and runs where
// no driver exists (it then says "no CUDA driver" instead of failing to start).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::agent {

// The facts of device `ordinal` through the driver library `library`: name, compute
// capability, memory, SMs, clock and the per-block limits a launch must fit. Unavailable
// ("no CUDA driver: libcuda.so.1: cannot open shared object file: ...") without a driver,
// NotFound for an ordinal the driver does not have, FailedPrecondition for a driver that fails.
absl::StatusOr<v1::GpuFacts> ReadGpuFacts(const std::string& library, int ordinal);

// "cuda:N" -> N; -1 for anything else.
int ParseCudaDevice(const std::string& device);

}  // namespace tunefarm::agent
