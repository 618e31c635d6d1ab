// How well do a job's records rank its best schedules? (issue 13: records measured minutes
// apart on a drifting host)
//
// 1. Tunes ResNet-18's five conv layers as one job through the embedded local farm, so each
//    task's rounds lie minutes apart.
// 2. For each task, takes its best records and times them again in turns: one farm call with
//    all of them per turn, the order rotated every turn, the median over turns. That is the
//    closest thing to the truth this host allows: in turns, the drift between minutes falls on
//    every schedule alike.
// 3. Prints, per task, how often the records' costs order a pair as the turns do, and how much
//    slower (in turns) the best record is than the fastest of them.
//
// Environment:
//   TUNEFARM_RANKING_TRIALS   trials of the job (default 800)
//   TUNEFARM_RANKING_PER_ROUND  programs per round of a task (default 32, population 512: many
//                             rounds, as `tunefarm tune --per-round 32 --population 512`)
//   TUNEFARM_RANKING_TOP      records taken from the top (default 10)
//   TUNEFARM_RANKING_TURNS    turns of the re-timing (default 7)
//   TUNEFARM_RANKING_THREADS  threads of the kernels (default: the machine's cores)
//   TUNEFARM_RANKING_DB       an existing job's database: skip the tuning and re-time its records
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/compiler/bench_workloads.h"
#include "cli/embedded_farm.h"
#include "common/temp_dir.h"
#include "compiler/codegen/host_target.h"
#include "db/tuning_database.h"
#include "tuner/device_pool.h"
#include "tuner/job_runner.h"
#include "tuner/job_spec.h"
#include "tuner/kernel_build.h"

using namespace tunefarm;

namespace {

constexpr char kKey[] = "ranking-bench";

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

struct Task {
  std::string name;
  std::shared_ptr<const te::ComputeDag> dag;
};

// Tunes every task in one job; false (and a line on stderr) when it did not succeed.
bool Tune(const std::vector<Task>& tasks, const std::string& db_path, const cli::EmbeddedFarm& farm, int trials,
          int threads, int per_round) {
  auto database = db::TuningDatabase::Open(db_path);
  if (!database.ok()) return false;
  v1::JobSpec spec;
  for (const Task& t : tasks) {
    if (!(*database)->RegisterWorkload(t.dag->WorkloadKey(), t.dag->CanonicalText()).ok()) return false;
    spec.mutable_tasks()->add_tasks()->set_workload_key(t.dag->WorkloadKey());
  }
  spec.set_device_key(kKey);
  spec.set_trial_budget(trials);
  spec.set_threads(threads);
  spec.set_name("record ranking bench");
  spec.mutable_search()->set_measure_per_round(per_round);
  spec.mutable_search()->set_population(512);
  auto job = (*database)->CreateJob(tuner::SpecToJson(spec), trials);
  if (!job.ok()) return false;
  database->reset();
  tuner::RunnerOptions options;
  options.db_path = db_path;
  options.farm.tracker = farm.tracker_address();
  options.farm.token = farm.token();
  options.log = [](const std::string& line) { std::printf("  %s\n", line.c_str()); };
  tuner::JobRunner runner(options);
  const auto start = std::chrono::steady_clock::now();
  v1::JobProgress last = runner.Run(job->job_id);
  std::printf("tuned: %lld trials in %.0f s (%s)\n", static_cast<long long>(last.trials_done()),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), last.message().c_str());
  if (last.state() != v1::JOB_STATE_SUCCEEDED) {
    std::fprintf(stderr, "the job ended %s\n", v1::JobState_Name(last.state()).c_str());
    return false;
  }
  return true;
}

// Each contender's median over `turns` farm calls holding all of them, rotated every turn.
std::vector<double> TimeInTurns(tuner::DevicePool& pool, const Task& task, const std::vector<db::TuningRecord>& rs,
                                int threads, int turns) {
  const codegen::Target target = codegen::HostTarget();
  auto reference = tuner::BuildKernel(schedule::State(task.dag), target);
  std::vector<tuner::BuiltKernel> kernels;
  for (const db::TuningRecord& r : rs) {
    auto state = schedule::State::FromJson(task.dag, r.schedule_json);
    auto kernel = state.ok() ? tuner::BuildKernel(*state, target) : state.status();
    if (!reference.ok() || !kernel.ok()) {
      std::fprintf(stderr, "%s: record %s does not build\n", task.name.c_str(), r.record_id.c_str());
      std::exit(1);
    }
    kernels.push_back(std::move(*kernel));
  }
  v1::MeasureOptions options;  // as the job runner times candidates, without the correctness check
  options.set_repeat(3);
  options.set_number(1);
  options.set_min_repeat_ms(20);
  options.set_timeout_ms(10000);
  options.set_threads(threads);
  options.set_flush_cache(true);
  std::vector<std::vector<double>> medians(rs.size());
  for (int turn = 0; turn < turns; ++turn) {
    tuner::FarmSession::Batch batch;
    for (size_t k = 0; k < kernels.size(); ++k) {
      const size_t i = (k + static_cast<size_t>(turn)) % kernels.size();
      batch.push_back({i, &kernels[i], tuner::kTuneEntry});
    }
    absl::Status s = pool.Measure(options, *reference, batch, [&](const v1::MeasureResult& r) {
      if (r.error_kind() == v1::ERROR_KIND_NONE && r.costs_sec_size() > 0)
        medians[r.id()].push_back(Median({r.costs_sec().begin(), r.costs_sec().end()}));
    });
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", task.name.c_str(), std::string(s.message()).c_str());
      std::exit(1);
    }
  }
  std::vector<double> truth;
  for (const auto& m : medians) truth.push_back(m.empty() ? INFINITY : Median(m));
  return truth;
}

struct Agreement {
  int pairs = 0, agree = 0;
};

// Pairs whose times in turns differ by more than 3% (closer ones are within this host's noise).
Agreement Agree(const std::vector<db::TuningRecord>& rs, const std::vector<double>& truth) {
  Agreement a;
  for (size_t i = 0; i < rs.size(); ++i)
    for (size_t j = i + 1; j < rs.size(); ++j) {
      const double lo = std::min(truth[i], truth[j]), hi = std::max(truth[i], truth[j]);
      if (!(hi > 1.03 * lo) || !std::isfinite(hi)) continue;
      ++a.pairs;
      a.agree += (rs[i].Cost() < rs[j].Cost()) == (truth[i] < truth[j]);
    }
  return a;
}

}  // namespace

int main() {
  const int trials = EnvInt("TUNEFARM_RANKING_TRIALS", 800);
  const int per_round = EnvInt("TUNEFARM_RANKING_PER_ROUND", 32);
  const size_t top = static_cast<size_t>(std::max(2, EnvInt("TUNEFARM_RANKING_TOP", 10)));
  const int turns = std::max(1, EnvInt("TUNEFARM_RANKING_TURNS", 7));
  const int threads = EnvInt("TUNEFARM_RANKING_THREADS", static_cast<int>(std::thread::hardware_concurrency()));
  const char* existing = std::getenv("TUNEFARM_RANKING_DB");
  const codegen::Target target = codegen::HostTarget();
  const int lanes = target.VectorLanes(te::DType::kFloat32);
  std::printf("target: %s\ncpu: %s\n%d threads; the best %zu records of each task, %d turns\n", target.ToString().c_str(),
              bench::CpuModelName().c_str(), threads, top, turns);

  bench::WorkloadInputs inputs;
  std::vector<Task> tasks;
  for (const bench::ConvShape& conv : bench::ResNet18Convs()) {
    bench::Workload w = bench::ConvNchwcWorkload(inputs, "resnet-18 conv ", conv, lanes);
    tasks.push_back({w.name, w.dag});
  }

  absl::StatusOr<TempDir> dir = TempDir::Create("tunefarm-ranking");
  if (!dir.ok()) return 1;
  const std::string db_path = existing != nullptr ? existing : dir->File("ranking.db");
  auto farm = cli::EmbeddedFarm::Start(kKey, TUNEFARM_MEASURE_HELPER);
  if (!farm.ok()) {
    std::fprintf(stderr, "%s\n", std::string(farm.status().message()).c_str());
    return 1;
  }
  if (existing == nullptr) {
    if (!Tune(tasks, db_path, **farm, trials, threads, per_round)) return 1;
    dir->Keep();
    std::printf("the records: %s\n", db_path.c_str());
  }

  auto database = db::TuningDatabase::Open(db_path, {.read_only = true});
  tuner::DevicePoolOptions pool_options;
  pool_options.farm.tracker = (*farm)->tracker_address();
  pool_options.farm.token = (*farm)->token();
  pool_options.farm.device_key = kKey;
  auto pool = tuner::DevicePool::Open(pool_options);
  if (!database.ok() || !pool.ok()) {
    std::fprintf(stderr, "cannot open the database or lease the device\n");
    return 1;
  }
  std::printf("\n%-46s %6s %6s %14s %14s\n", "task", "timed", "pairs", "costs agree", "best's regret");
  Agreement total;
  for (const Task& task : tasks) {
    auto rs = (*database)->TopK(task.dag->WorkloadKey(), target.ToString(), threads, static_cast<int>(top));
    if (!rs.ok() || rs->size() < 2) continue;
    std::vector<double> truth = TimeInTurns(**pool, task, *rs, threads, turns);
    Agreement a = Agree(*rs, truth);
    total.pairs += a.pairs;
    total.agree += a.agree;
    // TopK is in cost order: the first is the best record.
    std::printf("%-46s %6zu %6d %8d (%3.0f%%) %14.3f\n", task.name.c_str(), rs->size(), a.pairs, a.agree,
                a.pairs ? 100.0 * a.agree / a.pairs : 0.0, truth[0] / *std::min_element(truth.begin(), truth.end()));
  }
  std::printf("all tasks: %d pairs; the records' costs order %.0f%% of them as the turns do\n", total.pairs,
              total.pairs ? 100.0 * total.agree / total.pairs : 0.0);
  return 0;
}
