#include "tuner/job_runner.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "compiler/common/strings.h"
#include "db/record_id.h"
#include "db/tuning_database.h"
#include "tuner/device_target.h"
#include "tuner/job_spec.h"
#include "tuner/tuning_task.h"

namespace tunefarm::tuner {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Text(const absl::Status& s) { return std::string(s.message()); }

struct TaskState {
  TuningTask task;
  std::set<std::string> measured;  // schedule hashes with a record of this job
  int64_t trials = 0;
  double best = 0;  // lowest valid mean cost; 0 until one
};

// The agent's result as a tuning record (DESIGN.md "Tuning record").
void FillOutcome(const v1::MeasureResult& r, db::TuningRecord* rec) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  rec->costs_sec.assign(r.costs_sec().begin(), r.costs_sec().end());
  rec->error_message = r.message();
  rec->max_abs_error = nan;
  rec->max_rel_error = nan;
  switch (r.error_kind()) {
    case v1::ERROR_KIND_NONE: rec->error_kind = db::ErrorKind::kNone; break;
    case v1::ERROR_KIND_BUILD: rec->error_kind = db::ErrorKind::kBuild; break;
    case v1::ERROR_KIND_LOAD: rec->error_kind = db::ErrorKind::kLoad; break;
    case v1::ERROR_KIND_CRASH:
      rec->error_kind = db::ErrorKind::kCrash;
      rec->error_code = r.signal() != 0 ? r.signal() : r.exit_code();
      break;
    case v1::ERROR_KIND_TIMEOUT: rec->error_kind = db::ErrorKind::kTimeout; break;
    case v1::ERROR_KIND_WRONG_RESULT: rec->error_kind = db::ErrorKind::kWrongResult; break;
    case v1::ERROR_KIND_RUNTIME_ERROR:
      rec->error_kind = db::ErrorKind::kRuntimeError;
      rec->error_code = r.exit_code();
      break;
    case v1::ERROR_KIND_OUT_OF_MEMORY:
      rec->error_kind = db::ErrorKind::kOutOfMemory;
      rec->error_code = r.signal();
      break;
    default:
      rec->error_kind = db::ErrorKind::kRuntimeError;
      rec->error_message = StrCat("agent reported error kind ", static_cast<int>(r.error_kind()), ": ",
                                  r.message());
      break;
  }
  // The error figures exist when the outputs were compared.
  if (r.error_kind() == v1::ERROR_KIND_NONE || r.error_kind() == v1::ERROR_KIND_WRONG_RESULT) {
    rec->max_abs_error = r.max_abs_error();
    rec->max_rel_error = r.max_rel_error();
  }
  if (rec->error_kind != db::ErrorKind::kNone) rec->costs_sec.clear();
  rec->measured_unix_ms = r.finished_unix_us() > 0 ? r.finished_unix_us() / 1000 : NowMs();
}

// One Run: the job's database connection, lease, tasks and counters.
class JobRun {
 public:
  JobRun(const RunnerOptions& options, RunStats* stats, std::string job_id)
      : options_(options), stats_(stats), job_id_(std::move(job_id)) {
    progress_.set_job_id(job_id_);
  }

  v1::JobProgress Run();

 private:
  absl::Status Prepare();
  absl::Status TuneTask(TaskState& task, int64_t quota);
  absl::Status WriteRecord(TaskState& task, db::TuningRecord record);
  db::TuningRecord NewRecord(const TaskState& task, const Candidate& c) const;
  bool Stopping() const { return StopWanted() != StopRequest::kNone || cancelled_; }
  StopRequest StopWanted() const { return options_.stop ? options_.stop() : StopRequest::kNone; }
  void Publish();
  v1::JobProgress Finish(v1::JobState state, const std::string& message);

  const RunnerOptions& options_;
  RunStats* stats_;
  std::string job_id_;
  std::unique_ptr<db::TuningDatabase> db_;
  v1::JobSpec spec_;
  std::unique_ptr<FarmSession> farm_;
  codegen::Target target_;
  int threads_ = 1;
  std::vector<TaskState> tasks_;
  int64_t trials_done_ = 0;
  bool cancelled_ = false;  // the database says the job was cancelled meanwhile
  v1::JobProgress progress_;
};

void JobRun::Publish() {
  progress_.set_trials_done(trials_done_);
  progress_.clear_tasks();
  for (const TaskState& t : tasks_) {
    v1::TaskProgress* p = progress_.add_tasks();
    p->set_workload_key(t.task.workload_key);
    p->set_trials(t.trials);
    p->set_best_cost_sec(t.best);
  }
  if (options_.on_progress) options_.on_progress(progress_);
}

v1::JobProgress JobRun::Finish(v1::JobState state, const std::string& message) {
  if (db_ != nullptr) {
    // A job cancelled meanwhile is final in the database: these updates are refused, which is
    // what should happen. A stopping tuner leaves the job running, to be resumed.
    if (state == v1::JOB_STATE_SUCCEEDED) (void)db_->SetJobState(job_id_, db::JobState::kDone);
    if (state == v1::JOB_STATE_FAILED) (void)db_->SetJobState(job_id_, db::JobState::kFailed, message);
    if (state == v1::JOB_STATE_CANCELLED) (void)db_->SetJobState(job_id_, db::JobState::kCancelled);
  }
  progress_.set_state(state);
  progress_.set_message(message);
  Publish();
  return progress_;
}

absl::Status JobRun::Prepare() {
  db::OpenOptions open;
  open.create_if_missing = false;
  auto database = db::TuningDatabase::Open(options_.db_path, open);
  if (!database.ok()) return database.status();
  db_ = std::move(*database);
  auto job = db_->GetJob(job_id_);
  if (!job.ok()) return job.status();
  progress_.set_trial_budget(job->trials_total);
  progress_.set_state(ToWire(job->state));
  if (db::IsFinal(job->state)) return absl::OkStatus();
  auto spec = SpecFromJson(job->spec_json);
  if (!spec.ok()) return spec.status();
  spec_ = *spec;
  if (job->state == db::JobState::kQueued)
    if (absl::Status s = db_->SetJobState(job_id_, db::JobState::kRunning); !s.ok()) return s;
  progress_.set_state(v1::JOB_STATE_RUNNING);
  progress_.set_message(StrCat("waiting for a '", spec_.device_key(), "' device"));
  Publish();

  FarmOptions farm = options_.farm;
  farm.device_key = spec_.device_key();
  auto session = FarmSession::Open(farm, [this] { return StopWanted() != StopRequest::kNone; });
  if (!session.ok()) return session.status();
  farm_ = std::move(*session);
  auto target = TargetForDevice(farm_->device().facts(), spec_.target());
  if (!target.ok()) return target.status();
  target_ = *target;
  threads_ = spec_.threads() > 0 ? spec_.threads() : std::max(1, farm_->device().facts().logical_cpus());

  std::vector<TuningTask> tasks;
  if (spec_.has_model_path()) {
    build::BuildOptions build;
    build.target = target_;
    build.threads = threads_;
    auto extracted = ExtractTasksFromModel(spec_.model_path(), build);
    if (!extracted.ok()) return extracted.status();
    tasks = std::move(*extracted);
  } else {
    for (const v1::TuneTask& t : spec_.tasks().tasks()) {
      auto task = TaskFromKey(t.workload_key(), t.compute_dag(), t.weight() > 0 ? t.weight() : 1, db_.get());
      if (!task.ok()) return task.status();
      tasks.push_back(std::move(*task));
    }
  }
  for (TuningTask& t : tasks) {
    if (absl::Status s = db_->RegisterWorkload(t.workload_key, t.dag->CanonicalText()); !s.ok()) return s;
    tasks_.push_back({std::move(t), {}, 0, 0});
  }

  // Resume: what this job already measured.
  auto previous = db_->RecordsOfJob(job_id_);
  if (!previous.ok()) return previous.status();
  for (const db::TuningRecord& r : *previous) {
    for (TaskState& t : tasks_) {
      if (t.task.workload_key != r.workload_key) continue;
      t.measured.insert(r.schedule_hash);
      ++t.trials;
      if (r.IsValid() && (t.best == 0 || r.MeanCost() < t.best)) t.best = r.MeanCost();
    }
  }
  stats_->resumed_records = static_cast<int64_t>(previous->size());
  trials_done_ = static_cast<int64_t>(previous->size());
  progress_.set_message(StrCat(tasks_.size(), " tasks on ", farm_->grant().device_address(), " (",
                               target_.ToString(), ", ", threads_, " threads)"));
  Publish();
  return absl::OkStatus();
}

db::TuningRecord JobRun::NewRecord(const TaskState& task, const Candidate& c) const {
  db::TuningRecord rec;
  rec.workload_key = task.task.workload_key;
  rec.target = target_.ToString();
  rec.threads = threads_;
  rec.device_key = spec_.device_key();
  rec.schedule_json = c.json;
  rec.schedule_hash = c.hash;
  rec.job_id = job_id_;
  rec.created_unix_ms = NowMs();
  return rec;
}

absl::Status JobRun::WriteRecord(TaskState& task, db::TuningRecord record) {
  auto id = db::NewUuidV4();
  if (!id.ok()) return id.status();
  record.record_id = *id;
  if (record.measured_unix_ms == 0) record.measured_unix_ms = NowMs();
  auto written = db_->AddRecord(record);
  if (!written.ok()) return written.status();
  ++stats_->records_written;
  task.measured.insert(record.schedule_hash);
  ++task.trials;
  ++trials_done_;
  if (record.IsValid() && (task.best == 0 || record.MeanCost() < task.best)) task.best = record.MeanCost();
  absl::Status updated = db_->UpdateJobProgress(job_id_, trials_done_);
  if (updated.code() == absl::StatusCode::kFailedPrecondition) {
    cancelled_ = true;  // final in the database: CancelJob got there first
  } else if (!updated.ok()) {
    return updated;
  }
  Publish();
  return absl::OkStatus();
}

absl::Status JobRun::TuneTask(TaskState& task, int64_t quota) {
  schedule::RuleContext rules;
  rules.vector_lanes = target_.VectorLanes(te::DType::kFloat32);
  rules.num_threads = threads_;
  SearchTarget space = SearchTarget::FromTarget(target_);
  space.cores = threads_;
  // The seed depends on the job id, so a resumed job draws the same sequence.
  auto generator = CandidateGenerator::Create(task.task.dag, rules, space,
                                              TaskSeed(TaskSeed(0, job_id_), task.task.workload_key));
  if (!generator.ok()) return generator.status();
  auto reference = BuildKernel(generator->default_candidate().state, target_);
  if (!reference.ok()) {
    return absl::InternalError(StrCat("task ", task.task.workload_key, ": the reference (default schedule) ",
                                      "does not build: ", Text(reference.status())));
  }
  CandidateRanker& ranker = *options_.ranker;
  std::set<std::string> seen = task.measured;
  v1::MeasureOptions measure;
  measure.set_repeat(options_.repeat);
  measure.set_number(1);
  measure.set_min_repeat_ms(options_.min_repeat_ms);
  measure.set_timeout_ms(options_.timeout_ms);
  measure.set_check_correctness(true);
  measure.set_atol(options_.atol);
  measure.set_rtol(options_.rtol);
  measure.set_threads(threads_);

  while (task.trials < quota && !Stopping()) {
    const int want = static_cast<int>(std::min<int64_t>(options_.batch_size, quota - task.trials));
    std::vector<Candidate> pool = generator->Next(want * std::max(1, ranker.pool_factor()), &seen);
    if (pool.empty()) break;  // this sketch's variants are exhausted
    ranker.Rank(task.task, &pool);
    if (static_cast<int>(pool.size()) > want) pool.erase(pool.begin() + want, pool.end());
    stats_->generated += static_cast<int64_t>(pool.size());

    // Build phase: every kernel of the batch, before anything is measured.
    std::vector<BuiltKernel> kernels;
    std::vector<size_t> built;  // index into pool of each kernel
    kernels.reserve(pool.size());
    for (size_t i = 0; i < pool.size() && !Stopping(); ++i) {
      auto kernel = BuildKernel(pool[i].state, target_);
      if (kernel.ok()) {
        kernels.push_back(std::move(*kernel));
        built.push_back(i);
        continue;
      }
      ++stats_->build_errors;
      db::TuningRecord rec = NewRecord(task, pool[i]);
      rec.error_kind = db::ErrorKind::kBuild;
      rec.error_message = Text(kernel.status());
      rec.max_abs_error = rec.max_rel_error = std::numeric_limits<double>::quiet_NaN();
      ranker.Observe(task.task, pool[i], rec);
      if (absl::Status s = WriteRecord(task, std::move(rec)); !s.ok()) return s;
    }
    if (Stopping() || kernels.empty()) continue;

    // Measure phase: one call for the batch; each result is written as it arrives.
    FarmSession::Batch batch;
    for (size_t k = 0; k < kernels.size(); ++k) batch.push_back({k, &kernels[k]});
    absl::Status write_error;
    absl::Status measured = farm_->Measure(measure, *reference, batch, [&](const v1::MeasureResult& r) {
      ++stats_->measured;
      if (r.id() >= built.size() || !write_error.ok()) return;
      if (r.error_kind() == v1::ERROR_KIND_NOT_FOUND) return;  // evicted twice: not a trial
      const Candidate& c = pool[built[r.id()]];
      db::TuningRecord rec = NewRecord(task, c);
      FillOutcome(r, &rec);
      ranker.Observe(task.task, c, rec);
      write_error = WriteRecord(task, std::move(rec));
    });
    if (!write_error.ok()) return write_error;
    if (!measured.ok()) return measured;
  }
  return absl::OkStatus();
}

v1::JobProgress JobRun::Run() {
  absl::Status prepared = Prepare();
  if (IsFinal(progress_.state()) && prepared.ok()) return progress_;  // nothing left to do
  auto stopped = [&]() -> std::optional<v1::JobProgress> {
    StopRequest why = StopWanted();
    if (cancelled_ || why == StopRequest::kCancel) return Finish(v1::JOB_STATE_CANCELLED, "cancelled");
    if (why == StopRequest::kShutdown) {
      progress_.set_message("tuner stopping; the job resumes when it starts again");
      Publish();
      return progress_;
    }
    return std::nullopt;
  };
  if (!prepared.ok()) {
    if (auto s = stopped()) return *s;
    return Finish(v1::JOB_STATE_FAILED, Text(prepared));
  }

  // The budget is shared out in task order; what a task leaves (its variants ran out) goes to
  // the tasks after it. A cost-driven task scheduler would weigh tasks instead (not done).
  const int64_t budget = progress_.trial_budget();
  std::vector<std::string> exhausted;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (auto s = stopped()) return *s;
    TaskState& task = tasks_[i];
    const int64_t left = budget - trials_done_;
    const int64_t share = std::max<int64_t>(0, (left + static_cast<int64_t>(tasks_.size() - i) - 1) /
                                                   static_cast<int64_t>(tasks_.size() - i));
    const int64_t quota = task.trials + share;
    if (absl::Status s = TuneTask(task, quota); !s.ok()) {
      if (auto st = stopped()) return *st;
      return Finish(v1::JOB_STATE_FAILED, Text(s));
    }
    if (task.trials < quota && !Stopping()) exhausted.push_back(task.task.workload_key);
  }
  if (auto s = stopped()) return *s;
  std::string message = StrCat(trials_done_, " trials");
  if (!exhausted.empty()) {
    StrAppend(&message, "; candidates ran out for ", exhausted.size(), " task(s) before their share");
  }
  return Finish(v1::JOB_STATE_SUCCEEDED, message);
}

}  // namespace

JobRunner::JobRunner(RunnerOptions options) : options_(std::move(options)) {
  if (!options_.ranker) options_.ranker = std::make_shared<GenerationOrder>();
}

v1::JobProgress JobRunner::Run(const std::string& job_id) {
  stats_ = RunStats();
  return JobRun(options_, &stats_, job_id).Run();
}

}  // namespace tunefarm::tuner
