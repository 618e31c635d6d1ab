#include "tuner/job_manager.h"

#include <algorithm>

#include "common/strings.h"
#include "common/unix_time.h"
#include "tuner/job_claim.h"
#include "tuner/job_spec.h"

namespace tunefarm::tuner {

absl::StatusOr<std::unique_ptr<JobManager>> JobManager::Start(JobManagerOptions options) {
  std::unique_ptr<JobManager> manager(new JobManager(std::move(options)));
  auto database = db::TuningDatabase::Open(manager->options_.runner.db_path);
  if (!database.ok()) return database.status();
  manager->db_ = std::move(*database);
  // By priority; among equals, running jobs first (they were under way when the last tuner
  // stopped), then queued ones.
  for (db::JobState state : {db::JobState::kRunning, db::JobState::kQueued}) {
    auto jobs = manager->db_->ListJobs(state);
    if (!jobs.ok()) return jobs.status();
    for (const db::Job& job : *jobs) {
      // Another live tuner on this database runs it (its claim, tuner/job_claim.h).
      if (state == db::JobState::kRunning && !db::IsInterrupted(job, UnixMillisNow()) &&
          !IsDeadLocalOwner(job.owner)) {
        manager->Log(StrCat("job ", job.job_id, ": run by ", job.owner, ", not resumed here"));
        continue;
      }
      auto spec = SpecFromJson(job.spec_json);
      manager->queue_.Push(job.job_id, spec.ok() ? JobPriority(*spec) : 0);  // a bad spec fails when run
      manager->jobs_[job.job_id].progress = manager->FromDatabase(job);
      manager->Log(StrCat("job ", job.job_id, ": ", db::JobStateName(state), " in the database, resuming (",
                          job.trials_done, "/", job.trials_total, " trials)"));
    }
  }
  manager->worker_ = std::thread([m = manager.get()] { m->Work(); });
  return manager;
}

JobManager::~JobManager() { Stop(); }

void JobManager::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

v1::JobProgress JobManager::FromDatabase(const db::Job& job) const {
  v1::JobProgress p;
  p.set_job_id(job.job_id);
  p.set_state(ToWire(job.state));
  p.set_trials_done(job.trials_done);
  p.set_trial_budget(job.trials_total);
  p.set_message(job.error_message);
  return p;
}

void JobManager::Update(const v1::JobProgress& progress) {
  Entry& e = jobs_[progress.job_id()];
  if (IsFinal(e.progress.state()) && !IsFinal(progress.state())) {
    e.progress.set_trials_done(progress.trials_done());  // results still arriving after a cancel
    *e.progress.mutable_tasks() = progress.tasks();
  } else {
    e.progress = progress;
  }
  ++e.version;
  changed_.notify_all();
}

void JobManager::Work() {
  while (true) {
    std::string job_id;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job_id = *queue_.Pop();
      current_ = job_id;
      stop_request_ = StopRequest::kNone;
    }
    Log(StrCat("job ", job_id, ": started"));
    RunnerOptions runner = options_.runner;
    runner.on_progress = [&](const v1::JobProgress& p) {
      std::lock_guard<std::mutex> lock(mu_);
      Update(p);
    };
    runner.stop = [this] { return stop_request_.load(); };
    v1::JobProgress last = JobRunner(runner).Run(job_id);
    Log(StrCat("job ", job_id, ": ", v1::JobState_Name(last.state()), ", ", last.trials_done(), "/",
               last.trial_budget(), " trials", last.message().empty() ? "" : ": ", last.message()));
    std::lock_guard<std::mutex> lock(mu_);
    Update(last);
    current_.clear();
  }
}

absl::StatusOr<std::string> JobManager::Submit(const v1::JobSpec& spec) {
  if (absl::Status s = ValidateSpec(spec); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return absl::UnavailableError("tuner stopping");
  auto job = db_->CreateJob(SpecToJson(spec), spec.trial_budget());
  if (!job.ok()) return job.status();
  queue_.Push(job->job_id, JobPriority(spec));
  Update(FromDatabase(*job));
  Log(StrCat("job ", job->job_id, ": submitted (", spec.trial_budget(), " trials on '", spec.device_key(), "')"));
  return job->job_id;
}

absl::StatusOr<v1::JobState> JobManager::Cancel(const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto job = db_->GetJob(job_id);
  if (!job.ok()) return job.status();
  if (db::IsFinal(job->state)) return ToWire(job->state);
  absl::Status set = db_->SetJobState(job_id, db::JobState::kCancelled);
  if (set.code() == absl::StatusCode::kFailedPrecondition) {
    // The job ended meanwhile: report how.
    auto now = db_->GetJob(job_id);
    if (!now.ok()) return now.status();
    return ToWire(now->state);
  }
  if (!set.ok()) return set;
  if (current_ == job_id) stop_request_ = StopRequest::kCancel;
  queue_.Remove(job_id);
  v1::JobProgress p = jobs_.count(job_id) ? jobs_[job_id].progress : FromDatabase(*job);
  p.set_state(v1::JOB_STATE_CANCELLED);
  p.set_message("cancelled");
  Update(p);
  Log(StrCat("job ", job_id, ": cancelled"));
  return v1::JOB_STATE_CANCELLED;
}

absl::StatusOr<std::vector<v1::JobInfo>> JobManager::List(bool include_finished) {
  std::lock_guard<std::mutex> lock(mu_);
  auto jobs = db_->ListJobs();
  if (!jobs.ok()) return jobs.status();
  std::vector<v1::JobInfo> out;
  for (const db::Job& job : *jobs) {
    if (!include_finished && db::IsFinal(job.state)) continue;
    v1::JobInfo info;
    info.set_job_id(job.job_id);
    if (auto spec = SpecFromJson(job.spec_json); spec.ok()) *info.mutable_spec() = *spec;
    auto it = jobs_.find(job.job_id);
    *info.mutable_progress() = it != jobs_.end() ? it->second.progress : FromDatabase(job);
    info.set_created_unix_ms(job.created_unix_ms);
    info.set_updated_unix_ms(job.updated_unix_ms);
    out.push_back(std::move(info));
  }
  return out;
}

absl::StatusOr<std::optional<v1::JobProgress>> JobManager::WaitProgress(
    const std::string& job_id, uint64_t* version, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) {
    // A job of an earlier tuner process that has already ended (or an unknown id).
    auto job = db_->GetJob(job_id);
    if (!job.ok()) return job.status();
    it = jobs_.emplace(job_id, Entry{FromDatabase(*job), 1}).first;
  }
  auto newer = [&] { return stopping_ || jobs_[job_id].version > *version; };
  if (!changed_.wait_for(lock, timeout, newer) || jobs_[job_id].version <= *version) return std::nullopt;
  const Entry& e = jobs_[job_id];
  *version = e.version;
  return e.progress;
}

void JobManager::BeginStop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
  stop_request_ = StopRequest::kShutdown;
  changed_.notify_all();
}

void JobManager::Stop() {
  BeginStop();
  if (worker_.joinable()) worker_.join();
}

}  // namespace tunefarm::tuner
