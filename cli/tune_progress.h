// What `tunefarm tune` shows while a job runs and when it ends:
//  - a progress line after every round: round, trials (valid), the estimated model latency
//    (sum over tasks of calls x best), the task just tuned and its best, and an ETA;
//  - the final table, one row per task by name: calls, trials, valid, default and best cost,
//    speed-up, GFLOP/s;
//  - the tuning curves as an SVG: estimated model latency against trials, and per task the
//    best GFLOP/s against trials.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::cli {

class TuneProgress {
 public:
  // Called with every progress update; prints what changed.
  void Update(const v1::JobProgress& progress);
  // Writes the curves collected so far.
  absl::Status WriteCurves(const std::string& path) const;

 private:
  std::string last_message_;
  int32_t last_round_ = -1;
  std::map<std::string, int64_t> trials_at_last_round_;
  // Curves: (trials done, estimated latency) and per task (its trials, best GFLOP/s).
  std::vector<std::pair<double, double>> latency_;
  std::map<std::string, std::vector<std::pair<double, double>>> task_gflops_;
  std::map<std::string, std::string> task_names_;
};

// The job's table: per task, calls, trials, valid ones, the default-rule schedule's cost (when
// this job measured it) against the best; then the estimated model latency of both.
void PrintTaskTable(const v1::JobProgress& last);

}  // namespace tunefarm::cli
