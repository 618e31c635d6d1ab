// Measures the candidates of one Measure call: finds their kernels (and the reference) in the
// cache, runs them in a tunefarm-measure helper under the agent's limits, one helper for the
// whole call as long as isolation allows, and turns what happened to each candidate into a
// MeasureResult with one of the proto's error kinds:
//   helper outcome ok / load / runtime error / wrong result / out of memory  -> the same kind
//   killed at the deadline, or by its CPU-time limit (SIGXCPU)                -> TIMEOUT
//   killed by SIGKILL that the agent did not send (the OOM killer)            -> OUT_OF_MEMORY
//   any other signal, or an exit without an outcome                           -> CRASH
//   kernel or reference not cached                                            -> NOT_FOUND
// A candidate whose helper died, hung or was killed is reported as above; its helper's whole
// process group is killed and a fresh helper starts for the remaining candidates. So does one
// whose helper retired itself (the candidate ran out of memory or changed the process).
#ifndef TUNEFARM_DEVICE_AGENT_MEASURE_RUNNER_H_
#define TUNEFARM_DEVICE_AGENT_MEASURE_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "device_agent/agent_device.h"
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
  AgentDevice device;                  // what the kernels run on
};

// Tolerances used when a request leaves both atol and rtol at 0.
inline constexpr double kDefaultAtol = 1e-5;
inline constexpr double kDefaultRtol = 1e-4;

// The helper's settings for a batch (the reference's path already resolved), with defaults
// filled in; batch_cpu_limit_sec is left for the caller (it depends on the candidates left).
MeasureSpec MakeMeasureSpec(const v1::MeasureOptions& options, const MeasureLimits& limits,
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

  // Measures the request's candidates in order and gives each result to `deliver` as soon as
  // it exists. `cancelled` (may be null) becoming true kills the helper; the call then returns
  // Cancelled. Other errors: a helper could not be started or refused its arguments.
  absl::Status Measure(const v1::MeasureRequest& request, const std::atomic<bool>* cancelled,
                       const std::function<void(v1::MeasureResult)>& deliver);

  // Helper processes started since the agent started (Info.helpers_started).
  int64_t helpers_started() const { return helpers_started_.load(); }

 private:
  // One candidate, in `helper` (started when null, reset when it must not serve another).
  absl::StatusOr<v1::MeasureResult> MeasureCandidate(MeasureSpec spec, int remaining,
                                                     const CandidateJob& job, uint64_t id,
                                                     int32_t timeout_ms,
                                                     const std::atomic<bool>* cancelled,
                                                     std::unique_ptr<HelperProcess>& helper);

  KernelCache& cache_;
  const MeasureLimits limits_;
  std::atomic<int64_t> helpers_started_{0};
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_MEASURE_RUNNER_H_
