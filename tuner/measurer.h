// The measurer: a round's candidates built into kernels and timed on the farm. The build
// phase (one worker per core) finishes before the measure phase starts (on a small machine a
// build running beside a measurement would disturb its timings). Every outcome, a build error or the agent's
// result, becomes the measurement part of a tuning record (costs, error kind and message,
// errors against the reference) and is handed on as it arrives, so the caller writes it at
// once and nothing measured is lost when the tuner dies.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "db/tuning_record.h"
#include "proto/tunefarm.pb.h"
#include "tuner/candidate_generator.h"
#include "tuner/device_pool.h"
#include "tuner/kernel_build.h"

namespace tunefarm::tuner {

// A candidate whose first timed repeat is this many times slower than its task's best so far
// gets no more repeats (MeasureOptions.stop_above_sec): it will never be chosen, and the cost
// model only needs to know that it is slow. Random programs of GEMM 1024^3 ran 10-100x slower
// than the best; their repeats were 94% of a job's time.
inline constexpr double kSlowCandidateFactor = 4;

struct MeasureCounters {
  int64_t built = 0;
  int64_t build_errors = 0;
  int64_t measured = 0;  // results received from the agent
  double build_seconds = 0;
  double measure_seconds = 0;
};

class Measurer {
 public:
  // `options` are the agent's timing and checking settings of every batch.
  // Kernels are built on `build_threads` workers (0: one per core of this host).
  Measurer(DevicePool* farm, codegen::Target target, v1::MeasureOptions options, std::function<bool()> stopping,
           int build_threads = 0)
      : farm_(farm),
        target_(std::move(target)),
        options_(std::move(options)),
        stopping_(std::move(stopping)),
        build_threads_(build_threads > 0 ? build_threads : std::max(1u, std::thread::hardware_concurrency())) {}

  // The outcome of candidates[index], as a record with only the measurement fields set.
  using OnOutcome = std::function<absl::Status(size_t index, db::TuningRecord outcome)>;

  // Builds and measures `candidates` against `reference`; `best_cost_sec` is the task's best
  // so far (0: none yet). Stops early (OK) when `stopping` turns true; returns the first error
  // of the farm or of `on_outcome`.
  absl::Status Measure(const BuiltKernel& reference, const std::vector<Candidate>& candidates, double best_cost_sec,
                       const OnOutcome& on_outcome);

  const MeasureCounters& counters() const { return counters_; }
  const codegen::Target& target() const { return target_; }

 private:
  DevicePool* farm_;
  codegen::Target target_;
  v1::MeasureOptions options_;
  std::function<bool()> stopping_;
  size_t build_threads_;
  MeasureCounters counters_;
};

// The agent's result as the measurement fields of a tuning record (DESIGN.md "Tuning record").
void FillOutcome(const v1::MeasureResult& result, db::TuningRecord* record);

}  // namespace tunefarm::tuner
