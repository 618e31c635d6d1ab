// Where LLVM's time goes per tuning candidate, and what that time buys (issue "tuning
// throughput": codegen was 80% of a squeezenet job's stage time on a 2-core Zen 5). For a fixed,
// seeded sample of the search space of a few conv tasks, each program is lowered, turned into
// LLVM IR, optimized (the O3 pipeline), turned into machine code, linked, and then run: the
// time of each step per program (mean, median, 90th percentile, max), the object size, and the
// kernels' speed (best and geometric mean of the programs that ran within the limit).
//
// The sample is the same on every run, so LLVM settings can be compared on the same programs:
//   TUNEFARM_LLVM_OPTIONS="-some-llvm-option=..." build/bench/compiler/codegen_time_bench
// Environment: TUNEFARM_CODEGEN_PROGRAMS (programs per task, default 48), TUNEFARM_BENCH_FILTER.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/compiler/bench_workloads.h"
#include "bench/compiler/kernel_probe.h"
#include "compiler/codegen/compile_module.h"
#include "compiler/codegen/host_target.h"
#include "compiler/codegen/object_emitter.h"
#include "compiler/codegen/shared_object.h"
#include "common/strings.h"
#include "compiler/tir/lower.h"
#include "deploy/thread_pool.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/search_target.h"

using namespace tunefarm;

namespace {

using bench::Clock;
using bench::SecondsSince;

// One program's steps, in seconds, and its kernel's time (0 when it did not run in the limit).
struct ProgramTimes {
  double lower = 0, ir = 0, optimize = 0, backend = 0, link = 0;
  size_t object_bytes = 0;
  double kernel = 0;
};

// Mean, median, 90th percentile and max of `v`, in ms.
std::string Spread(std::vector<double> v) {
  if (v.empty()) return "-";
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))]; };
  char line[128];
  std::snprintf(line, sizeof(line), "%8.1f %8.1f %8.1f %8.1f", 1e3 * sum / static_cast<double>(v.size()), 1e3 * at(0.5),
                1e3 * at(0.9), 1e3 * v.back());
  return line;
}

absl::StatusOr<ProgramTimes> BuildAndRun(const schedule::State& program, const bench::Workload& w,
                                         const codegen::Target& target, int threads, deploy::ThreadPool* pool,
                                         int64_t out_elems, double limit_s) {
  ProgramTimes t;
  Clock::time_point start = Clock::now();
  absl::StatusOr<tir::PrimFunc> f = tir::Lower(program, "kernel");
  if (!f.ok()) return f.status();
  t.lower = SecondsSince(start);
  start = Clock::now();
  absl::StatusOr<codegen::CompiledModule> module = codegen::CompileModule({*f}, target, /*optimize=*/false);
  if (!module.ok()) return module.status();
  t.ir = SecondsSince(start);
  start = Clock::now();
  codegen::OptimizeLlvmModule(*module->module, *module->machine);
  t.optimize = SecondsSince(start);
  start = Clock::now();
  absl::StatusOr<std::string> object = codegen::EmitObjectFile(*module->module, *module->machine);
  if (!object.ok()) return object.status();
  t.backend = SecondsSince(start);
  t.object_bytes = object->size();
  start = Clock::now();
  absl::StatusOr<std::string> so = codegen::LinkSharedObject(*object);
  if (!so.ok()) return so.status();
  t.link = SecondsSince(start);

  auto kernel = bench::LoadKernel("program", *so);
  if (!kernel.ok()) return kernel.status();
  auto args = bench::MakeArgsFor(program, w.inputs, out_elems);
  if (!args.ok()) return args.status();
  // A random program can be a thousand times slower than a good one: probed in a child first.
  const bench::Probe probe = bench::ProbeInChild(**kernel, *args, threads, 2 * limit_s + 0.5);
  if (probe.outcome == bench::Probe::kOk && probe.seconds <= limit_s)
    t.kernel = bench::TimeKernel(**kernel, *args, pool, /*min_repeat_ms=*/20);
  return t;
}

void Report(const bench::Workload& w, const codegen::Target& target, int threads, int count, deploy::ThreadPool* pool) {
  tuner::SearchTarget space = tuner::SearchTarget::FromTarget(target);
  space.cores = threads;
  std::mt19937_64 rng(7);
  tuner::SampleStats stats;
  const std::vector<schedule::State> programs = tuner::SampleInitialPopulation(w.dag, space, count, rng, &stats);
  std::unique_ptr<bench::Compiled> fallback = bench::BuildDefaultKernel(w, target, threads);
  if (fallback == nullptr) return;
  int64_t out_elems = 1;
  for (int64_t d : w.dag->tensor(w.dag->outputs().back()).shape) out_elems *= d;
  bench::Arrays default_args = bench::MakeArgs(w.inputs, out_elems);
  const double default_s = bench::TimeKernel(*fallback, default_args, pool, 20);

  std::vector<ProgramTimes> all;
  int failed = 0;
  for (const schedule::State& p : programs) {
    auto t = BuildAndRun(p, w, target, threads, pool, out_elems, 20 * default_s);
    if (!t.ok()) {
      if (failed++ == 0) std::fprintf(stderr, "  %s\n", std::string(t.status().message()).c_str());
      continue;
    }
    all.push_back(*t);
  }
  auto column = [&](double ProgramTimes::*field) {
    std::vector<double> v;
    for (const ProgramTimes& t : all) v.push_back(t.*field);
    return v;
  };
  std::vector<double> bytes;
  double best = INFINITY, log_sum = 0, codegen_total = 0;
  int ran = 0;
  for (const ProgramTimes& t : all) {
    bytes.push_back(static_cast<double>(t.object_bytes) / 1e6);  // Spread prints x 1e3: KB
    codegen_total += t.ir + t.optimize + t.backend;
    if (t.kernel <= 0) continue;
    best = std::min(best, t.kernel);
    log_sum += std::log(t.kernel);
    ++ran;
  }
  std::printf("%s: %zu programs (%d failed), %d threads\n", w.name.c_str(), all.size(), failed, threads);
  std::printf("  step, ms per program      mean   median      p90      max\n");
  std::printf("  lower               %s\n", Spread(column(&ProgramTimes::lower)).c_str());
  std::printf("  LLVM IR             %s\n", Spread(column(&ProgramTimes::ir)).c_str());
  std::printf("  IR optimization     %s\n", Spread(column(&ProgramTimes::optimize)).c_str());
  std::printf("  machine code        %s\n", Spread(column(&ProgramTimes::backend)).c_str());
  std::printf("  link                %s\n", Spread(column(&ProgramTimes::link)).c_str());
  std::printf("  object KB           %s\n", Spread(bytes).c_str());
  std::printf("  codegen (IR + opt + machine code) in all: %.2f s\n", codegen_total);
  std::printf("  kernels: default %.3f ms; %d of %zu ran within 20x it: best %.3f ms, geometric mean %.3f ms\n\n",
              default_s * 1e3, ran, all.size(), ran ? best * 1e3 : 0.0, ran ? std::exp(log_sum / ran) * 1e3 : 0.0);
}

}  // namespace

int main() {
  const codegen::Target target = codegen::HostTarget();
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const char* count_env = std::getenv("TUNEFARM_CODEGEN_PROGRAMS");
  const int count = count_env ? std::atoi(count_env) : 48;
  const char* filter = std::getenv("TUNEFARM_BENCH_FILTER");
  const char* llvm_options = std::getenv("TUNEFARM_LLVM_OPTIONS");
  std::printf("cpu: %s\ntarget: %s\nLLVM options: %s\n\n", bench::CpuModelName().c_str(), target.ToString().c_str(),
              llvm_options ? llvm_options : "(none)");
  tuner::SearchTarget space = tuner::SearchTarget::FromTarget(target);
  bench::WorkloadInputs inputs;
  std::vector<bench::Workload> workloads;
  const auto& convs = bench::ResNet18Convs();
  workloads.push_back(bench::ConvNchwcWorkload(inputs, "resnet-18 ", convs[0], space.vector_lanes));
  workloads.push_back(bench::ConvNchwcWorkload(inputs, "resnet-18 ", convs[2], space.vector_lanes));
  workloads.push_back(bench::MatmulWorkload(inputs, 1, 1000, 512));
  deploy::ThreadPool pool(threads);
  for (const bench::Workload& w : workloads) {
    if (filter != nullptr && w.name.find(filter) == std::string::npos) continue;
    Report(w, target, threads, count, &pool);
  }
  return 0;
}
