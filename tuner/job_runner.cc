#include "tuner/job_runner.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "common/strings.h"
#include "compiler/schedule/gpu_thread_per_point.h"
#include "common/unix_time.h"
#include "db/record_id.h"
#include "db/tuning_database.h"
#include "tuner/batch_prefetch.h"
#include "tuner/device_target.h"
#include "tuner/job_claim.h"
#include "tuner/job_spec.h"
#include "tuner/measurer.h"
#include "tuner/record_writer.h"
#include "tuner/search_policy_factory.h"
#include "tuner/task_name.h"
#include "tuner/task_scheduler.h"
#include "tuner/tuning_task.h"
#include "tuner/tuning_profile.h"

namespace tunefarm::tuner {
namespace {

std::string Text(const absl::Status& s) { return std::string(s.message()); }

struct TaskState {
  TuningTask task;
  std::string name;
  std::unique_ptr<SearchPolicy> policy;
  std::optional<BuiltKernel> reference;  // built at the task's first round
  std::set<std::string> measured;        // hashes with a record for this workload/target/threads
  int64_t trials = 0;                    // records of this job
  int64_t valid = 0;
  double best = 0;          // lowest valid cost in the database; 0 until one
  double default_cost = 0;  // of the default-rule schedule, once measured by this job
  std::map<std::string, double> job_costs;  // valid records of this job by hash (for a resume)
  int rounds = 0;
  bool exhausted = false;
};

// One Run: the job's database connection, lease, tasks, scheduler and counters.
class JobRun {
 public:
  JobRun(const RunnerOptions& options, RunStats* stats, std::string job_id)
      : options_(options), stats_(stats), job_id_(std::move(job_id)) {
    progress_.set_job_id(job_id_);
  }

  v1::JobProgress Run();

 private:
  absl::Status Prepare();
  absl::Status LoadTasks();
  absl::Status RunRound(int task_index);
  // The task's search policy, made when it is first needed (its first round, or a search ahead).
  absl::Status EnsurePolicy(TaskState& task);
  // The task's correctness reference (the unscheduled kernel), built at its first round.
  absl::Status EnsureReference(TaskState& task);
  // The round's programs: searched ahead during an earlier round, or searched now.
  std::vector<Candidate> NextBatch(int task_index);
  // Pipelined: starts the search of the task likely to come after this round of `task_index`.
  void PrefetchAfter(int task_index);
  // Counts `record` in its task and queues it; the queue is written once it holds `group`
  // records or has waited too long (record_writer.h).
  absl::Status AddRecord(TaskState& task, db::TuningRecord record, size_t group);
  // Writes the queued records in one transaction, then the job's progress.
  absl::Status WriteRecords();
  int RoundSize(int task_index) const;
  bool Stopping() const { return StopWanted() != StopRequest::kNone || cancelled_; }
  // Polled between steps, so it also keeps the job's claim alive; a lost claim (another tuner
  // took the job over) stops this run as a shutdown would.
  StopRequest StopWanted() const {
    if (claim_ != nullptr && !claim_->KeepAlive()) return StopRequest::kShutdown;
    return options_.stop ? options_.stop() : StopRequest::kNone;
  }
  void Log(const std::string& line) const {
    if (options_.log) options_.log(line);
  }
  void Publish();
  v1::JobProgress Finish(v1::JobState state, const std::string& message);

  const RunnerOptions& options_;
  RunStats* stats_;
  std::string job_id_;
  std::unique_ptr<db::TuningDatabase> db_;
  std::unique_ptr<RecordWriter> records_;
  // Declared after db_, so released before the connection closes. Mutable: StopWanted renews it.
  mutable std::unique_ptr<JobClaim> claim_;
  bool held_elsewhere_ = false;  // another live tuner runs the job: leave it alone
  v1::JobSpec spec_;
  SearchConfig search_;
  uint64_t seed_ = 0;
  std::unique_ptr<DevicePool> farm_;
  std::unique_ptr<Measurer> measurer_;
  std::unique_ptr<SearchPolicyFactory> policies_;
  std::unique_ptr<GradientTaskScheduler> scheduler_;
  codegen::Target target_;
  int threads_ = 1;
  std::vector<TaskState> tasks_;
  int64_t trials_done_ = 0;
  int round_ = 0;
  bool cancelled_ = false;  // the database says the job was cancelled meanwhile
  v1::JobProgress progress_;
  // Last: a search in flight reads the tasks and the cost model, so it ends before they go.
  BatchPrefetch prefetch_;
};

void JobRun::Publish() {
  progress_.set_trials_done(trials_done_);
  progress_.set_round(round_);
  progress_.clear_tasks();
  for (const TaskState& t : tasks_) {
    v1::TaskProgress* p = progress_.add_tasks();
    p->set_workload_key(t.task.workload_key);
    p->set_name(t.name);
    p->set_weight(t.task.weight);
    p->set_flops(t.task.dag->TotalFlops());
    p->set_trials(t.trials);
    p->set_valid(t.valid);
    p->set_rounds(t.rounds);
    p->set_best_cost_sec(t.best);
    p->set_default_cost_sec(t.default_cost);
  }
  bool complete = !tasks_.empty();
  double latency = 0;
  for (const TaskState& t : tasks_) {
    complete = complete && t.best > 0;
    latency += t.task.weight * t.best;
  }
  progress_.set_estimated_latency_sec(complete ? latency : 0);
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
  records_ = std::make_unique<RecordWriter>(db_.get());
  auto job = db_->GetJob(job_id_);
  if (!job.ok()) return job.status();
  progress_.set_trial_budget(job->trials_total);
  progress_.set_state(ToWire(job->state));
  if (db::IsFinal(job->state)) {
    progress_.set_message(StrCat("the job has already ended (", db::JobStateName(job->state), ")",
                                 job->error_message.empty() ? "" : ": ", job->error_message));
    return absl::OkStatus();
  }
  auto claim = JobClaim::Acquire(db_.get(), job_id_);
  if (!claim.ok()) {
    held_elsewhere_ = claim.status().code() == absl::StatusCode::kFailedPrecondition;
    return claim.status();
  }
  claim_ = std::move(*claim);
  auto spec = SpecFromJson(job->spec_json);
  if (!spec.ok()) return spec.status();
  spec_ = *spec;
  search_ = SearchConfigOf(spec_);
  // The job's seed: the spec's, else one derived from the job id, so a resumed job draws the
  // same sequences and checks on the same inputs.
  seed_ = spec_.seed() != 0 ? spec_.seed() : TaskSeed(0, job_id_);
  if (job->state == db::JobState::kQueued)
    if (absl::Status s = db_->SetJobState(job_id_, db::JobState::kRunning); !s.ok()) return s;
  progress_.set_state(v1::JOB_STATE_RUNNING);
  progress_.set_message(StrCat("waiting for a '", spec_.device_key(), "' device"));
  Publish();

  DevicePoolOptions pool;
  pool.farm = options_.farm;
  pool.farm.device_key = spec_.device_key();
  pool.farm.client_name = StrCat(options_.farm.client_name, " job ", job_id_);
  pool.max_devices = options_.max_devices;
  pool.priority = JobPriority(spec_);
  pool.stop = [this] { return Stopping(); };  // a cancel the database says counts too
  pool.log = [this](const std::string& line) { Log(StrCat("job ", job_id_, ": ", line)); };
  pool.on_change = [this](bool waiting, int devices) {
    const bool was_waiting = progress_.waiting_for_devices();
    progress_.set_waiting_for_devices(waiting);
    progress_.set_devices(devices);
    if (waiting) {
      progress_.set_message(StrCat("waiting for devices: no '", spec_.device_key(), "' device is free"));
    } else if (was_waiting && !tasks_.empty()) {
      progress_.set_message(StrCat("measuring again, on ", devices, " device(s)"));
    }
    Publish();
  };
  auto session = DevicePool::Open(std::move(pool));
  if (!session.ok()) return session.status();
  farm_ = std::move(*session);
  auto target = TargetForDevice(farm_->device().facts(), spec_.target());
  if (!target.ok()) return target.status();
  target_ = *target;
  threads_ = spec_.threads() > 0 ? spec_.threads() : std::max(1, farm_->device().facts().logical_cpus());

  v1::MeasureOptions measure;
  measure.set_repeat(options_.repeat);
  measure.set_number(1);
  measure.set_min_repeat_ms(options_.min_repeat_ms);
  measure.set_timeout_ms(options_.timeout_ms);
  measure.set_check_correctness(true);
  measure.set_atol(options_.atol);
  measure.set_rtol(options_.rtol);
  measure.set_threads(threads_);
  measure.set_flush_cache(options_.flush_cache);
  measure.set_seed(seed_);
  measurer_ = std::make_unique<Measurer>(farm_.get(), target_, measure, [this] { return Stopping(); });
  measurer_->set_pipelining(options_.pipelining);
  const bool here = farm_->AnyDeviceOnThisHost();
  Log(StrCat("job ", job_id_, ": ",
             options_.pipelining == Pipelining::kOn    ? "builds and the next task's search overlap measurements (pipelined), as the runner was told"
             : options_.pipelining == Pipelining::kOff ? "builds wait for measurements (serial), as the runner was told"
             : here ? StrCat("builds wait for measurements (serial): the device ", farm_->first_address(),
                             " runs on this host's cores")
                    : StrCat("builds and the next task's search overlap measurements (pipelined): the device ", farm_->first_address(),
                             " is another machine (serial again whenever a device of this host joins)")));

  if (absl::Status s = LoadTasks(); !s.ok()) return s;
  std::vector<SchedulerTask> weights;
  // Tasks of one op (the name before its shapes) are "similar": the scheduler bounds what one
  // may reach by what the best of them reached, per flop.
  for (const TaskState& t : tasks_)
    weights.push_back({t.task.weight, t.task.dag->TotalFlops(), t.name.substr(0, t.name.find('('))});
  TaskSchedulerOptions scheduling;
  scheduling.early_stop_rounds = search_.early_stop_rounds;
  scheduling.seed = seed_;
  scheduler_ = std::make_unique<GradientTaskScheduler>(std::move(weights), scheduling);
  // A resumed task has had its warm-up: its best so far stands for its rounds.
  for (size_t i = 0; i < tasks_.size(); ++i)
    if (tasks_[i].trials > 0) scheduler_->Record(static_cast<int>(i), tasks_[i].best);

  progress_.set_started_unix_ms(UnixMillisNow());
  progress_.set_trials_at_start(trials_done_);
  progress_.set_message(StrCat(tasks_.size(), " tasks on ", farm_->size(), " '", spec_.device_key(), "' device(s) (first ",
                               farm_->first_address(), "; ", target_.ToString(),
                               ", ", threads_, " threads, ", search_.policy, " search)"));
  Publish();
  return absl::OkStatus();
}

absl::Status JobRun::LoadTasks() {
  std::vector<TuningTask> tasks;
  if (spec_.has_model_path()) {
    build::BuildOptions build;
    build.target = target_;
    build.threads = threads_;
    auto extracted = ExtractTasksFromModel(spec_.model_path(), {spec_.bind().begin(), spec_.bind().end()}, build);
    if (!extracted.ok()) return extracted.status();
    tasks = std::move(*extracted);
  } else {
    for (const v1::TuneTask& t : spec_.tasks().tasks()) {
      auto task = TaskFromKey(t.workload_key(), t.compute_dag(), t.weight() > 0 ? t.weight() : 1, db_.get());
      if (!task.ok()) return task.status();
      tasks.push_back(std::move(*task));
    }
  }
  const std::string target = target_.ToString();
  PolicyContext context;
  context.config = search_;
  context.target = target_;
  context.threads = threads_;
  context.database = db_.get();
  context.model_path = JobModelPath(options_.db_path, job_id_);
  context.log = options_.log;
  auto policies = SearchPolicyFactory::Create(std::move(context));
  if (!policies.ok()) return policies.status();
  policies_ = std::move(*policies);
  for (TuningTask& t : tasks) {
    if (absl::Status s = db_->RegisterWorkload(t.workload_key, t.dag->CanonicalText()); !s.ok()) return s;
    TaskState state;
    state.name = TaskName(*t.dag);
    auto hashes = db_->MeasuredHashes(t.workload_key, target, threads_);
    if (!hashes.ok()) return hashes.status();
    state.measured.insert(hashes->begin(), hashes->end());
    auto best = db_->Best(t.workload_key, target, threads_);
    if (!best.ok()) return best.status();
    if (best->has_value()) state.best = (*best)->Cost();
    state.task = std::move(t);
    tasks_.push_back(std::move(state));
  }
  // Resume: what this job already measured.
  auto previous = db_->RecordsOfJob(job_id_);
  if (!previous.ok()) return previous.status();
  for (const db::TuningRecord& r : *previous) {
    for (TaskState& t : tasks_) {
      if (t.task.workload_key != r.workload_key) continue;
      ++t.trials;
      if (r.IsValid()) {
        ++t.valid;
        t.job_costs[r.schedule_hash] = r.Cost();
      }
    }
  }
  stats_->resumed_records = static_cast<int64_t>(previous->size());
  trials_done_ = static_cast<int64_t>(previous->size());
  return absl::OkStatus();
}

absl::Status JobRun::AddRecord(TaskState& task, db::TuningRecord record, size_t group) {
  auto id = db::NewUuidV4();
  if (!id.ok()) return id.status();
  record.record_id = *id;
  if (record.measured_unix_ms == 0) record.measured_unix_ms = UnixMillisNow();
  task.measured.insert(record.schedule_hash);
  ++task.trials;
  ++trials_done_;
  if (record.IsValid()) {
    ++task.valid;
    if (task.best == 0 || record.Cost() < task.best) task.best = record.Cost();
  }
  records_->Add(std::move(record));
  if (records_->Due(group))
    if (absl::Status s = WriteRecords(); !s.ok()) return s;
  Publish();
  return absl::OkStatus();
}

absl::Status JobRun::WriteRecords() {
  if (records_ == nullptr || records_->pending() == 0) return absl::OkStatus();
  StageTimer timer(TuningStage::kDbWrite);
  absl::StatusOr<size_t> written = records_->Flush();
  if (!written.ok()) return written.status();
  stats_->records_written += static_cast<int64_t>(*written);
  ++stats_->record_writes;
  absl::Status updated = db_->UpdateJobProgress(job_id_, trials_done_);
  if (updated.code() == absl::StatusCode::kFailedPrecondition) {
    cancelled_ = true;  // final in the database: CancelJob got there first
  } else if (!updated.ok()) {
    return updated;
  }
  return absl::OkStatus();
}

// The round size of task_scheduler.h, for this job's budget and tasks.
int JobRun::RoundSize(int task_index) const {
  int64_t unwarmed = 0;
  for (const TaskState& t : tasks_) unwarmed += (t.rounds == 0 && t.trials == 0 && !t.exhausted) ? 1 : 0;
  const TaskState& task = tasks_[task_index];
  return static_cast<int>(tuner::RoundSize(search_.measure_per_round, progress_.trial_budget(),
                                           progress_.trial_budget() - trials_done_, task.rounds == 0 && task.trials == 0,
                                           static_cast<int64_t>(tasks_.size()), unwarmed));
}

absl::Status JobRun::EnsurePolicy(TaskState& task) {
  if (task.policy == nullptr) {
    auto policy = policies_->ForTask(task.task, TaskSeed(seed_, task.task.workload_key));
    if (!policy.ok()) return policy.status();
    task.policy = std::move(*policy);
    // Resumed: the default may have been measured by the run that stopped.
    if (auto it = task.job_costs.find(task.policy->default_candidate().hash); it != task.job_costs.end())
      task.default_cost = it->second;
  }
  return absl::OkStatus();
}

absl::Status JobRun::EnsureReference(TaskState& task) {
  if (!task.reference.has_value()) {
    // The reference is the unscheduled DAG: it does not depend on any rule or candidate. A GPU
    // runs only bound loops, so there it is one thread per output point, every reduction
    // serial in its thread (gpu_thread_per_point.h: no tiling, shared memory or virtual
    // threads), itself checked against the unscheduled DAG on the CPU in CI
    // (tests/tuner/gpu_model_tasks_test.cc).
    absl::StatusOr<schedule::State> unscheduled =
        target_.IsCuda() ? schedule::ApplyGpuThreadPerPointSchedule(task.task.dag, schedule::GpuRuleContext{})
                         : absl::StatusOr<schedule::State>(schedule::State(task.task.dag));
    if (!unscheduled.ok()) return unscheduled.status();
    auto reference = BuildKernel(*unscheduled, target_);
    if (!reference.ok()) {
      return absl::InternalError(
          StrCat("task ", task.name, " (", task.task.workload_key,
                 "): the reference (unscheduled) kernel does not build: ", Text(reference.status())));
    }
    task.reference = std::move(*reference);
  }
  return absl::OkStatus();
}

std::vector<Candidate> JobRun::NextBatch(int index) {
  TaskState& task = tasks_[index];
  const size_t size = static_cast<size_t>(RoundSize(index));
  if (std::optional<std::vector<Candidate>> ahead = prefetch_.Take(index, round_); ahead.has_value() && !ahead->empty()) {
    // Sized when the round before started: the budget left may be smaller now.
    if (ahead->size() > size) ahead->erase(ahead->begin() + static_cast<std::ptrdiff_t>(size), ahead->end());
    ++stats_->prefetched_rounds;
    return std::move(*ahead);
  }
  StageTimer timer(TuningStage::kSampleReplay);
  return task.policy->NextBatch(static_cast<int>(size), task.measured);
}

void JobRun::PrefetchAfter(int index) {
  const int next = scheduler_->LikelyNextBesides(index);
  if (next < 0 || prefetch_.Holds(next)) return;
  TaskState& task = tasks_[next];
  if (!EnsurePolicy(task).ok()) return;  // the task's own round reports why
  prefetch_.Start(next, round_, task.policy.get(), RoundSize(next), &task.measured);
}

absl::Status JobRun::RunRound(int index) {
  TaskState& task = tasks_[index];
  if (absl::Status s = EnsurePolicy(task); !s.ok()) return s;
  if (absl::Status s = EnsureReference(task); !s.ok()) return s;
  std::vector<Candidate> batch = NextBatch(index);
  stats_->generated += static_cast<int64_t>(batch.size());
  if (batch.empty()) {
    task.exhausted = true;
    scheduler_->MarkExhausted(index);
    Log(StrCat("task ", task.name, ": the search found no new valid program; the task stops"));
    return absl::OkStatus();
  }
  // Measured in farm calls of batch_size programs per device; the records of each call are
  // written together (record_writer.h).
  std::vector<db::TuningRecord> outcomes(batch.size());
  std::vector<bool> done(batch.size(), false);
  const size_t devices = static_cast<size_t>(std::max(1, farm_->size()));
  size_t part = static_cast<size_t>(std::max(1, options_.batch_size)) * devices;
  // Pipelined, a round in one farm call would leave nothing to build meanwhile: at least four
  // calls a round (one program per device at the least), so three builds hide behind measurements.
  if (measurer_->Pipelined()) {
    part = std::min(part, std::max(devices, (batch.size() + 3) / 4));
    // Not when this round spends the rest of the budget: nothing would take that search.
    if (trials_done_ + static_cast<int64_t>(batch.size()) < progress_.trial_budget()) PrefetchAfter(index);
  }
  absl::Status measured = measurer_->Measure(
      *task.reference, batch, task.best,
      [&](size_t i, db::TuningRecord outcome) {
        const Candidate& c = batch[i];
        outcome.workload_key = task.task.workload_key;
        outcome.target = target_.ToString();
        outcome.threads = threads_;
        outcome.device_key = spec_.device_key();
        outcome.schedule_json = c.json;
        outcome.schedule_hash = c.hash;
        outcome.job_id = job_id_;
        outcome.created_unix_ms = UnixMillisNow();
        outcomes[i] = outcome;
        done[i] = true;
        if (c.hash == task.policy->default_candidate().hash && outcome.IsValid()) task.default_cost = outcome.Cost();
        return AddRecord(task, std::move(outcome), part);
      },
      part);
  prefetch_.Wait();  // before Observe retrains the cost model that search reads
  absl::Status written = WriteRecords();  // what the round measured, also when it failed
  if (!measured.ok()) return measured;
  if (!written.ok()) return written;
  std::vector<MeasuredCandidate> results;
  for (size_t i = 0; i < batch.size(); ++i)
    if (done[i]) results.push_back({&batch[i], &outcomes[i]});
  // A partial round is not a round, and its results are not worth a retrain now: a resumed job
  // relearns them from the database.
  if (Stopping()) return absl::OkStatus();
  task.policy->Observe(results);
  ++task.rounds;
  ++round_;
  ++stats_->rounds;
  scheduler_->Record(index, task.best);
  Publish();
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
    if (held_elsewhere_) {  // not this run's job to fail: its state stays as the other tuner keeps it
      progress_.set_message(Text(prepared));
      Publish();
      return progress_;
    }
    if (auto s = stopped()) return *s;
    return Finish(v1::JOB_STATE_FAILED, Text(prepared));
  }

  while (trials_done_ < progress_.trial_budget()) {
    if (auto s = stopped()) return *s;
    const int next = scheduler_->NextTask();
    if (next < 0) break;  // every task stopped: converged or exhausted
    if (absl::Status s = RunRound(next); !s.ok()) {
      if (auto st = stopped()) return *st;
      return Finish(v1::JOB_STATE_FAILED, Text(s));
    }
  }
  if (auto s = stopped()) return *s;
  stats_->build_errors = measurer_->counters().build_errors;
  stats_->measured = measurer_->counters().measured;
  stats_->devices = farm_->usage();
  if (stats_->devices.size() > 1) {
    std::string spread;
    for (const DeviceUse& d : stats_->devices) {
      StrAppend(&spread, spread.empty() ? "" : "; ", d.address, " ", d.batches, " batches, ", d.candidates, " results",
                d.lost ? " (lost)" : "", d.given_back ? " (given back)" : "");
    }
    Log(StrCat("job ", job_id_, ": measured on ", stats_->devices.size(), " devices: ", spread));
  }
  std::string message = StrCat(trials_done_, " trials in ", round_, " rounds");
  int stopped_early = 0, exhausted = 0;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (tasks_[i].exhausted)
      ++exhausted;
    else if (scheduler_->stopped(static_cast<int>(i)))
      ++stopped_early;
  }
  if (exhausted > 0) StrAppend(&message, "; candidates ran out for ", exhausted, " task(s)");
  if (stopped_early > 0) StrAppend(&message, "; ", stopped_early, " task(s) stopped improving");
  return Finish(v1::JOB_STATE_SUCCEEDED, message);
}

}  // namespace

JobRunner::JobRunner(RunnerOptions options) : options_(std::move(options)) {}

v1::JobProgress JobRunner::Run(const std::string& job_id) {
  stats_ = RunStats();
  return JobRun(options_, &stats_, job_id).Run();
}

}  // namespace tunefarm::tuner
