// The tuner's jobs: submitted ones wait in a queue (by priority, then first come first served;
// tuner/job_queue.h) and one worker thread runs them one after another (one job at a time keeps builds and measurements from overlapping on a small
// machine). Progress is kept per job with a version number, so watchers wait for changes.
// Jobs live in the database: at start every queued or running job is queued again and
// resumes where its records end; a stopping tuner leaves its current job running there.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "db/tuning_database.h"
#include "proto/tunefarm.pb.h"
#include "tuner/job_queue.h"
#include "tuner/job_runner.h"

namespace tunefarm::tuner {

struct JobManagerOptions {
  // db_path, farm (tracker, token, TLS) and measurement settings; on_progress and stop are
  // the manager's own.
  RunnerOptions runner;
  std::function<void(const std::string&)> log;  // one line per job event; may be null
};

class JobManager {
 public:
  // Opens (creating if needed) the database, queues its unfinished jobs and starts the worker.
  static absl::StatusOr<std::unique_ptr<JobManager>> Start(JobManagerOptions options);
  ~JobManager();  // Stop()

  // Validates the spec, stores the job (queued) and queues it; returns its id.
  absl::StatusOr<std::string> Submit(const v1::JobSpec& spec);
  // Cancels a queued or running job (a running one stops after its current step); a finished
  // job keeps its state. Returns the job's state afterwards; NotFound for an unknown id.
  absl::StatusOr<v1::JobState> Cancel(const std::string& job_id);
  // Oldest first; without include_finished only queued and running jobs.
  absl::StatusOr<std::vector<v1::JobInfo>> List(bool include_finished);
  // The job's progress when it changed since `*version` (0: at once), waiting up to `timeout`;
  // nullopt when nothing changed meanwhile. Updates *version. NotFound for an unknown id.
  absl::StatusOr<std::optional<v1::JobProgress>> WaitProgress(const std::string& job_id,
                                                              uint64_t* version,
                                                              std::chrono::milliseconds timeout);

  // Stopping: no new jobs; watchers are told; the current job stops after its current step
  // and stays running in the database. BeginStop returns at once; Stop also joins the worker.
  void BeginStop();
  void Stop();
  bool stopping() const { return stopping_.load(); }

 private:
  struct Entry {
    v1::JobProgress progress;
    uint64_t version = 1;
  };

  explicit JobManager(JobManagerOptions options) : options_(std::move(options)) {}
  void Work();
  void Log(const std::string& line) const;
  // Records a progress update (mu_ held). A final state is never replaced by a non-final one.
  void Update(const v1::JobProgress& progress);
  v1::JobProgress FromDatabase(const db::Job& job) const;

  JobManagerOptions options_;
  std::unique_ptr<db::TuningDatabase> db_;  // the service's connection; the worker opens its own
  std::mutex mu_;
  std::condition_variable changed_;
  JobQueue queue_;
  std::map<std::string, Entry> jobs_;
  std::string current_;  // the job the worker runs, empty when idle
  std::atomic<StopRequest> stop_request_{StopRequest::kNone};
  std::atomic<bool> stopping_{false};
  std::thread worker_;
};

}  // namespace tunefarm::tuner
