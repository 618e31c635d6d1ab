// Runs one tuning job from the database to its end, in rounds (docs/tuner.md "A job"):
//   prepare   lease a device, map its facts to a target, extract the tasks, and give each task
//             its search policy and its correctness reference (the unscheduled kernel);
//   rounds    the task scheduler picks a task; its policy proposes a batch of programs; the
//             measurer builds and times them; each farm call's records are written in one
//             transaction (record_writer.h); the policy and the scheduler see the results.
//             Until the trial budget is spent or every task has stopped.
// A job that stopped half-way (the tuner was stopped or killed) resumes from its records:
// nothing with a record for the same workload, target and thread count is measured again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "proto/tunefarm.pb.h"
#include "tuner/device_pool.h"
#include "tuner/farm_session.h"
#include "tuner/measurer.h"

namespace tunefarm::tuner {

enum class StopRequest {
  kNone,
  kCancel,    // the job ends, cancelled
  kShutdown,  // the tuner stops: the job stays running in the database, to be resumed
};

struct RunnerOptions {
  std::string db_path;
  FarmOptions farm;  // tracker, token, TLS; the device key comes from each job's spec
  // Devices of the key a job measures on at once, when that many are free (docs/tuner.md
  // "The whole farm").
  int max_devices = 8;
  Pipelining pipelining = Pipelining::kAuto;
  // Programs per build+measure call to the agent (a round of a task may hold several).
  int batch_size = 8;
  // Timing settings of every Measure call; threads and the correctness check are set per job.
  int repeat = 3;
  int min_repeat_ms = 20;
  // Evict each candidate's inputs and weights from the caches before every timed run: inside a
  // model a kernel's weights come from memory, and timings with warm caches favour programs
  // that lose there (MeasureOptions.flush_cache).
  bool flush_cache = true;
  int timeout_ms = 10000;
  double atol = 1e-4, rtol = 1e-4;
  std::function<void(const v1::JobProgress&)> on_progress;  // after every change
  std::function<void(const std::string&)> log;              // one line per event worth telling
  std::function<StopRequest()> stop;                        // polled between steps
};

// What one Run did (for logs and tests).
struct RunStats {
  int64_t resumed_records = 0;  // records of the job found in the database at the start
  int64_t generated = 0;
  int64_t build_errors = 0;
  int64_t measured = 0;  // results received from the agent
  int64_t records_written = 0;
  int64_t record_writes = 0;  // transactions that wrote them
  int64_t rounds = 0;
  int64_t prefetched_rounds = 0;  // rounds whose programs were searched during an earlier round
  std::vector<DeviceUse> devices;  // every device the job measured on, in the order it got them
};

class JobRunner {
 public:
  explicit JobRunner(RunnerOptions options);
  // Runs the job until it succeeds, fails, is cancelled or the tuner stops; returns its last
  // progress. Errors become the job's failed state and message, never an exception.
  v1::JobProgress Run(const std::string& job_id);
  const RunStats& stats() const { return stats_; }

 private:
  RunnerOptions options_;
  RunStats stats_;
};

}  // namespace tunefarm::tuner
