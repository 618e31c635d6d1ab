// Where a tuning job's time goes, stage by stage (issue "tuning throughput", part 1): a
// process-wide set of counters that the tuner's stages add to as they run, read by
// bench/tuner/throughput/tuning_stages_bench and by anyone who wants to know why a job is slow.
// Adding is lock-free (atomics), so it costs nothing measurable beside the stages it times.
//
// Stages are exclusive: a timer started inside another (a lowering inside the search) pauses the
// outer one on that thread, so the stages of one thread add up to its wall time. Seconds are
// summed over threads (a stage run on two threads for one second counts two).
// Measurement comes from the agent's own clock per candidate (MeasureResult's started/finished,
// which include starting its helper process), so it holds for a remote agent too; queue wait is
// what a measure call spent beyond those measurements and the tuner's handling of the results
// (transport, queueing behind other work), at least 0 per call.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

namespace tunefarm::tuner {

enum class TuningStage {
  kSampleReplay,  // the search policy's own work: sampling sketches, annotation, evolution, replay
  kLower,      // schedule -> loop IR (for features, and again for the build)
  kFeatures,   // program features for the cost model
  kCostModel,  // cost model: training and prediction
  kCodegen,    // LLVM: loop IR -> object code
  kLink,       // lld: object -> shared object
  kUpload,     // kernels sent to the agent (content-addressed: only new ones)
  kQueueWait,  // a measure call's time beyond the agent's measurements
  kMeasure,    // the agent's measurements, repeats included
  kDbWrite,    // tuning records written to the database
  kCount,
};

std::string_view TuningStageName(TuningStage stage);

struct StageTotal {
  double seconds = 0;
  int64_t count = 0;  // how many times the stage ran (candidates, calls, records)
};

class TuningProfile {
 public:
  static TuningProfile& Global();

  void Add(TuningStage stage, double seconds, int64_t count = 1);
  StageTotal Get(TuningStage stage) const;
  void Reset();

 private:
  std::array<std::atomic<int64_t>, static_cast<size_t>(TuningStage::kCount)> nanos_{};
  std::array<std::atomic<int64_t>, static_cast<size_t>(TuningStage::kCount)> counts_{};
};

// Adds the time from construction to destruction to `stage` of the global profile, less the
// time of timers nested inside it on the same thread.
class StageTimer {
 public:
  explicit StageTimer(TuningStage stage);
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  void Pause();
  void Resume();

  TuningStage stage_;
  StageTimer* parent_;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tunefarm::tuner
