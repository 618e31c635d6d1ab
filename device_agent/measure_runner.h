// Measures one candidate: finds its kernel (and the reference) in the cache, runs the
// tunefarm-measure helper on them under the agent's limits, and turns what happened into a
// MeasureResult with one of the proto's error kinds:
//   helper outcome ok / load / runtime error / wrong result / out of memory  -> the same kind
//   killed at the deadline, or by its CPU-time limit (SIGXCPU)                -> TIMEOUT
//   killed by SIGKILL that the agent did not send (the OOM killer)            -> OUT_OF_MEMORY
//   any other signal, or an exit without an outcome                           -> CRASH
//   kernel or reference not cached                                            -> NOT_FOUND
#ifndef TUNEFARM_DEVICE_AGENT_MEASURE_RUNNER_H_
#define TUNEFARM_DEVICE_AGENT_MEASURE_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "device_agent/helper_process.h"
#include "device_agent/kernel_cache.h"
#include "device_agent/measure_protocol.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::agent {

struct MeasureLimits {
  std::string helper_path;          // tunefarm-measure
  int64_t memory_limit_bytes = 0;   // the helper's RLIMIT_AS; 0: none
  int32_t default_timeout_ms = 10000;  // when MeasureOptions.timeout_ms is 0
  int32_t max_timeout_ms = 600000;     // a request cannot ask for more
};

// Tolerances used when a request leaves both atol and rtol at 0.
inline constexpr double kDefaultAtol = 1e-5;
inline constexpr double kDefaultRtol = 1e-4;

// The helper's job for one candidate (paths already resolved), with defaults filled in.
MeasureSpec MakeMeasureSpec(const v1::MeasureOptions& options, const MeasureLimits& limits,
                            const std::string& kernel_path, const std::string& entry,
                            const std::string& reference_path, const std::string& reference_entry,
                            int32_t timeout_ms);

// The result for what the helper did. An error only for what is the agent's fault (the
// helper refused its own arguments) or a cancelled call.
absl::StatusOr<v1::MeasureResult> ResultOfRun(uint64_t id, const HelperRun& run,
                                              int32_t timeout_ms);

class MeasureRunner {
 public:
  MeasureRunner(KernelCache& cache, MeasureLimits limits)
      : cache_(cache), limits_(std::move(limits)) {}

  const MeasureLimits& limits() const { return limits_; }

  // `cancelled` (may be null) becoming true kills the helper; the call then returns Cancelled.
  // Other errors: the helper could not be started.
  absl::StatusOr<v1::MeasureResult> Measure(const v1::MeasureOptions& options,
                                            const v1::KernelRef& reference,
                                            const v1::Candidate& candidate,
                                            const std::atomic<bool>* cancelled);

 private:
  KernelCache& cache_;
  const MeasureLimits limits_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_MEASURE_RUNNER_H_
