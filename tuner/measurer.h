// The measurer: a round's candidates built into kernels and timed on the farm, in parts (a
// farm call per part: batch_size programs per device). Every outcome, a build error or the
// agent's result, becomes the measurement part of a tuning record (costs, error kind and
// message, errors against the reference) and is handed on as it arrives; the job runner
// writes a farm call's records together (record_writer.h).
//
// Serial or pipelined (docs/tuner.md "Measurement"): when the devices run on the tuner's own
// cores, a part is built (one worker per core) only after the previous one was measured,
// because a build beside a measurement would disturb its timings. When they run elsewhere,
// part k+1 is built while part k is measured, so the devices wait only for the first build.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "db/tuning_record.h"
#include "proto/tunefarm.pb.h"
#include "tuner/candidate_generator.h"
#include "tuner/device_pool.h"
#include "tuner/kernel_build.h"

namespace tunefarm::tuner {

// Whether a job builds the next farm call's programs while the devices measure the current
// one. kAuto: when none of the devices it holds runs on this host (device_locality.h).
enum class Pipelining { kAuto, kOn, kOff };

// A candidate whose first timed repeat is this many times slower than its task's best so far
// gets no more repeats (MeasureOptions.stop_above_sec): it will never be chosen, and the cost
// model only needs to know that it is slow. Random programs of GEMM 1024^3 ran 10-100x slower
// than the best; their repeats were 94% of a job's time.
inline constexpr double kSlowCandidateFactor = 4;

struct MeasureCounters {
  int64_t built = 0;
  int64_t build_errors = 0;
  int64_t libraries = 0;  // shared objects linked: one per farm call, unless its objects did not link together
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

  // Builds and measures `candidates` against `reference`, `part_size` programs per farm call
  // (0: all in one); `best_cost_sec` is the task's best so far (0: none yet). Stops early (OK)
  // when `stopping` turns true; returns the first error of the farm or of `on_outcome`, which
  // is called once at a time (from the device pool's threads when the job has several).
  absl::Status Measure(const BuiltKernel& reference, const std::vector<Candidate>& candidates, double best_cost_sec,
                       const OnOutcome& on_outcome, size_t part_size = 0);

  void set_pipelining(Pipelining pipelining) { pipelining_ = pipelining; }
  // Whether the next Measure call builds a part while the previous one is measured: decided
  // per call, since devices join and leave the job's pool.
  bool Pipelined() const;
  const MeasureCounters& counters() const { return counters_; }
  const codegen::Target& target() const { return target_; }

 private:
  // The programs of candidates [begin, end) that built, in one library (one per program when
  // the batch would not link), and the errors of those that did not.
  struct BuiltPart {
    std::vector<std::unique_ptr<BuiltKernel>> libraries;  // where `programs` point
    FarmSession::Batch programs;  // id: index into the round's candidates
    std::vector<std::pair<size_t, std::string>> errors;
  };
  BuiltPart Build(const std::vector<Candidate>& candidates, size_t begin, size_t end);
  absl::Status MeasurePart(const BuiltKernel& reference, BuiltPart& part, double best_cost_sec,
                           const OnOutcome& on_outcome);

  DevicePool* farm_;
  codegen::Target target_;
  v1::MeasureOptions options_;
  std::function<bool()> stopping_;
  size_t build_threads_;
  Pipelining pipelining_ = Pipelining::kAuto;
  MeasureCounters counters_;
};

// The agent's result as the measurement fields of a tuning record (DESIGN.md "Tuning record").
void FillOutcome(const v1::MeasureResult& result, db::TuningRecord* record);

}  // namespace tunefarm::tuner
