// Where a tuning job's time goes (issue "tuning throughput", part 1): a real job through the
// embedded local farm (a tracker and an agent on loopback in this process, measuring in the
// tunefarm-measure helper, as `tunefarm tune` without --tracker does), for GEMM 1024^3 and a
// ResNet-18 conv, with the time per trial of every stage (tuner/tuning_profile.h) and the
// trials per minute. The tuner and the agent share this machine's cores, so builds and
// measurements never overlap (tuner/measurer.h): the stages add up to the wall time.
//
// Environment:
//   TUNEFARM_STAGES_TRIALS      trials per workload (default 128)
//   TUNEFARM_STAGES_AGENTS      agents on loopback (default 1); more than one shows how a job
//                               spreads its batches over a key's devices, but they share this
//                               machine's cores, so their timings disturb each other
//   TUNEFARM_STAGES_THREADS     threads of the kernels (default: the machine's cores)
//   TUNEFARM_STAGES_POPULATION  evolution population (default the job default, 2048)
//   TUNEFARM_BENCH_FILTER       only the workloads whose name contains the text
//   TUNEFARM_STAGES_KEEP_DB     1: keep the jobs' database (its path is printed) to look at
//                               the records (`tunefarm db export --db PATH`)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/compiler/bench_workloads.h"
#include "cli/embedded_farm.h"
#include "common/allocator_name.h"
#include "common/temp_dir.h"
#include "compiler/codegen/host_target.h"
#include "db/tuning_database.h"
#include "tuner/job_runner.h"
#include "tuner/job_spec.h"
#include "tuner/tuning_profile.h"
#include "tuner/tuning_profile_table.h"

using namespace tunefarm;

namespace {

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

struct Row {
  std::string name;
  std::shared_ptr<const te::ComputeDag> dag;
};

void PrintProfile(const std::string& name, int64_t trials, double wall_s) {
  std::printf("\n%s: %s", name.c_str(), tuner::FormatStageTable(tuner::TuningProfile::Global(), trials, wall_s).c_str());
}

}  // namespace

int main() {
  const int trials = EnvInt("TUNEFARM_STAGES_TRIALS", 128);
  const int threads = EnvInt("TUNEFARM_STAGES_THREADS", static_cast<int>(std::thread::hardware_concurrency()));
  const int population = EnvInt("TUNEFARM_STAGES_POPULATION", 0);
  const int agents = std::max(1, EnvInt("TUNEFARM_STAGES_AGENTS", 1));
  const char* filter = std::getenv("TUNEFARM_BENCH_FILTER");
  const codegen::Target target = codegen::HostTarget();
  const int lanes = target.VectorLanes(te::DType::kFloat32);
  std::printf("target: %s\ncpu: %s\nallocator: %s\n%d trials per workload, %d threads, population %s, %d agent(s)\n",
              target.ToString().c_str(), bench::CpuModelName().c_str(), AllocatorName().c_str(), trials, threads,
              population > 0 ? std::to_string(population).c_str() : "default", agents);

  const bench::ConvShape conv = bench::ResNet18Convs()[0];
  const int64_t block = std::min<int64_t>(lanes, 64);
  std::vector<Row> rows = {
      {"gemm 1024x1024x1024", bench::MatmulDag(1024, 1024, 1024)},
      {"resnet-18 conv 64x56x56 3x3 nchw" + std::to_string(block) + "c", bench::ConvNchwcDag(conv, block, block)},
  };

  absl::StatusOr<TempDir> dir = TempDir::Create("tunefarm-stages");
  if (!dir.ok()) {
    std::fprintf(stderr, "%s\n", std::string(dir.status().message()).c_str());
    return 1;
  }
  const std::string db_path = dir->File("stages.db");
  auto farm = cli::EmbeddedFarm::Start("stages-bench", TUNEFARM_MEASURE_HELPER, agents);
  if (!farm.ok()) {
    std::fprintf(stderr, "%s\n", std::string(farm.status().message()).c_str());
    return 1;
  }
  for (const Row& row : rows) {
    if (filter != nullptr && row.name.find(filter) == std::string::npos) continue;
    auto database = db::TuningDatabase::Open(db_path);
    if (!database.ok() || !(*database)->RegisterWorkload(row.dag->WorkloadKey(), row.dag->CanonicalText()).ok()) {
      std::fprintf(stderr, "%s: cannot register the workload in %s\n", row.name.c_str(), db_path.c_str());
      return 1;
    }
    v1::JobSpec spec;
    spec.mutable_tasks()->add_tasks()->set_workload_key(row.dag->WorkloadKey());
    spec.set_device_key("stages-bench");
    spec.set_trial_budget(trials);
    spec.set_threads(threads);
    spec.set_name(row.name);
    if (population > 0) spec.mutable_search()->set_population(population);
    auto job = (*database)->CreateJob(tuner::SpecToJson(spec), trials);
    if (!job.ok()) {
      std::fprintf(stderr, "%s\n", std::string(job.status().message()).c_str());
      return 1;
    }
    database->reset();

    tuner::RunnerOptions options;
    options.db_path = db_path;
    options.farm.tracker = (*farm)->tracker_address();
    options.farm.token = (*farm)->token();
    tuner::JobRunner runner(options);
    tuner::TuningProfile::Global().Reset();
    const auto start = std::chrono::steady_clock::now();
    v1::JobProgress last = runner.Run(job->job_id);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (last.state() != v1::JOB_STATE_SUCCEEDED)
      std::printf("%s: job ended %s: %s\n", row.name.c_str(), v1::JobState_Name(last.state()).c_str(),
                  last.message().c_str());
    PrintProfile(row.name, runner.stats().records_written, wall_s);
    for (const tuner::DeviceUse& d : runner.stats().devices) {
      std::printf("  device %s: %lld batches, %lld results%s%s\n", d.address.c_str(), static_cast<long long>(d.batches),
                  static_cast<long long>(d.candidates), d.lost ? " (lost)" : "", d.given_back ? " (given back)" : "");
    }
  }
  if (EnvInt("TUNEFARM_STAGES_KEEP_DB", 0) == 1) {
    dir->Keep();
    std::printf("the records: %s\n", db_path.c_str());
  }
  return 0;
}
