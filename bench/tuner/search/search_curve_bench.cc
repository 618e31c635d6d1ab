// The search itself, kernel by kernel: the cost-model search (XGBoost + evolution,
// tuner/evolution_search_policy.h) against random sampling from the same space
// (tuner/random_search_policy.h), each measuring up to N programs in rounds of 64 exactly as a
// job does (the policy proposes, the programs are measured, the policy observes). Kernels are
// built and timed in this process (no farm: this measures search quality, not the farm), every
// output is checked against the default schedule's, and a wrong program is recorded as wrong.
// A program is first probed in a child process and stopped once clearly slower than the best so
// far (kernel_probe.h); its probe time is still its cost for the model.
//
// Printed per workload, policy and thread count: the best GFLOP/s after 64, 128, 256, 512 and
// 1000 trials (those within the budget), the final best against the default schedule and the
// peer (OpenBLAS / oneDNN) timed in the same run, the FMA peak share, and where the wall time
// went. The curves go to one SVG (TUNEFARM_CURVE_SVG, default search_curves.svg).
//
// Environment:
//   TUNEFARM_CURVE_TRIALS       programs measured per row (default 1000)
//   TUNEFARM_CURVE_THREADS      thread counts, e.g. "1,2" (default 1)
//   TUNEFARM_CURVE_POLICIES     "evolution,random" (default both)
//   TUNEFARM_CURVE_POPULATION   evolution population (default 2048)
//   TUNEFARM_CURVE_GENERATIONS  evolution generations per round (default 4)
//   TUNEFARM_CURVE_SEED         (default 1)
//   TUNEFARM_CURVE_SVG          the SVG file
//   TUNEFARM_BENCH_FILTER       only the workloads whose name contains the text
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/compiler/bench_workloads.h"
#include "bench/compiler/fma_peak.h"
#include "bench/compiler/kernel_probe.h"
#include "bench/timing.h"
#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "compiler/schedule/default_rules.h"
#include "tuner/search_policy_factory.h"
#include "tuner/svg_chart.h"
#include "common/temp_dir.h"

using namespace tunefarm;

namespace {

using bench::Clock;
using bench::SecondsSince;

constexpr double kPruneFactor = 4;        // a probe over this x the best so far is not timed
constexpr double kFirstLimitFactor = 25;  // before a best: this x the default schedule
constexpr double kProbeOverheadSeconds = 0.05;
constexpr double kRelativeTolerance = 1e-4;
constexpr int kFinalRepeats = 5;
constexpr double kFinalRepeatMs = 100;
constexpr double kMinRepeatMs = 5;
const int kCheckpoints[] = {64, 128, 256, 512, 1000};

struct Settings {
  int trials = 1000;
  std::vector<int> threads = {1};
  std::vector<std::string> policies = {"evolution", "random"};
  int population = 2048, generations = 4;
  uint64_t seed = 1;
  std::string svg = "search_curves.svg";
  std::string filter;

  static Settings FromEnvironment() {
    Settings s;
    if (const char* v = std::getenv("TUNEFARM_CURVE_TRIALS")) s.trials = std::max(1, std::atoi(v));
    s.threads = bench::ThreadCountsFromEnvironment("TUNEFARM_CURVE_THREADS", s.threads);
    if (const char* v = std::getenv("TUNEFARM_CURVE_POLICIES")) {
      s.policies.clear();
      for (std::string_view part : StrSplit(v, ',', true)) s.policies.emplace_back(part);
    }
    if (const char* v = std::getenv("TUNEFARM_CURVE_POPULATION")) s.population = std::max(8, std::atoi(v));
    if (const char* v = std::getenv("TUNEFARM_CURVE_GENERATIONS")) s.generations = std::max(1, std::atoi(v));
    if (const char* v = std::getenv("TUNEFARM_CURVE_SEED")) s.seed = std::strtoull(v, nullptr, 10);
    if (const char* v = std::getenv("TUNEFARM_CURVE_SVG")) s.svg = v;
    if (const char* v = std::getenv("TUNEFARM_BENCH_FILTER")) s.filter = v;
    return s;
  }
};

struct Curve {
  std::string policy;
  std::vector<double> best_s;  // best valid cost after each trial (inf: none yet)
  std::unique_ptr<bench::Compiled> best;
  bench::Arrays best_args;  // its arguments (its weights may be in a rewritten layout)
  int64_t wrong = 0, failed = 0, slow = 0;
  double search_s = 0, build_s = 0, measure_s = 0, wall_s = 0;
};

std::string Fixed(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%7.1f", v);
  return text;
}

float MaxAbs(const std::vector<float>& v) {
  float m = 0;
  for (float x : v) m = std::max(m, std::fabs(x));
  return m;
}

std::vector<absl::StatusOr<std::string>> CompileAll(const std::vector<tuner::Candidate>& batch,
                                                    const codegen::Target& target) {
  std::vector<absl::StatusOr<std::string>> objects(batch.size(), absl::UnknownError("not built"));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < batch.size(); i = next++) objects[i] = bench::CompileLowered(*batch[i].lowered, target);
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < std::max(1u, std::thread::hardware_concurrency()); ++t) workers.emplace_back(work);
  work();
  for (auto& t : workers) t.join();
  return objects;
}

// One policy's search on one workload: rounds of 64 until `trials` programs are measured.
Curve Search(const bench::Workload& w, const std::string& policy_name, const codegen::Target& target, int threads,
             const Settings& settings, const std::vector<float>& reference, double default_s, deploy::ThreadPool* pool, const std::string& model_dir) {
  Curve curve;
  curve.policy = policy_name;
  const Clock::time_point start = Clock::now();
  tuner::PolicyContext context;
  context.config.policy = policy_name;
  context.config.population = settings.population;
  context.config.generations = settings.generations;
  context.target = target;
  context.threads = threads;
  context.model_path = StrCat(model_dir, "/", policy_name, ".xgb");
  auto factory = tuner::SearchPolicyFactory::Create(context);
  if (!factory.ok()) {
    std::fprintf(stderr, "%s: %s\n", w.name.c_str(), std::string(factory.status().message()).c_str());
    return curve;
  }
  auto policy = (*factory)->ForTask({w.dag, w.dag->WorkloadKey(), 1}, settings.seed);
  if (!policy.ok()) {
    std::fprintf(stderr, "%s: %s\n", w.name.c_str(), std::string(policy.status().message()).c_str());
    return curve;
  }
  const float tolerance = static_cast<float>(kRelativeTolerance * std::max(1.0f, MaxAbs(reference)));
  std::set<std::string> measured;
  double best_s = std::numeric_limits<double>::infinity();
  while (static_cast<int>(curve.best_s.size()) < settings.trials) {
    const int want = std::min(64, settings.trials - static_cast<int>(curve.best_s.size()));
    Clock::time_point t0 = Clock::now();
    std::vector<tuner::Candidate> batch = (*policy)->NextBatch(want, measured);
    curve.search_s += SecondsSince(t0);
    if (batch.empty()) break;
    t0 = Clock::now();
    std::vector<absl::StatusOr<std::string>> objects = CompileAll(batch, target);
    curve.build_s += SecondsSince(t0);
    t0 = Clock::now();
    std::vector<db::TuningRecord> records(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      measured.insert(batch[i].hash);
      db::TuningRecord& rec = records[i];
      rec.error_kind = db::ErrorKind::kRuntimeError;
      auto kernel = objects[i].ok() ? bench::LoadKernel(w.name, *objects[i])
                                    : absl::StatusOr<std::unique_ptr<bench::Compiled>>(objects[i].status());
      // A program that rewrote its weights' layout gets them transformed (untimed).
      absl::StatusOr<bench::Arrays> own_args =
          kernel.ok() ? bench::MakeArgsFor(batch[i].state, w.inputs, static_cast<int64_t>(reference.size()))
                      : absl::StatusOr<bench::Arrays>(kernel.status());
      if (!kernel.ok() || !own_args.ok()) {
        ++curve.failed;
        rec.error_kind = db::ErrorKind::kBuild;
      } else {
        bench::Arrays& args = *own_args;
        const double limit_s = std::min(kPruneFactor * best_s, kFirstLimitFactor * default_s);
        const bench::Probe probe = bench::ProbeInChild(**kernel, args, threads, 2 * limit_s + kProbeOverheadSeconds);
        if (probe.outcome == bench::Probe::kOk && probe.seconds <= limit_s) {
          std::fill(args.out(), args.out() + reference.size(), NAN);
          const double s = bench::TimeKernel(**kernel, args, pool, kMinRepeatMs);
          const float diff = bench::MaxDiff(args.out(), reference);
          if (diff <= tolerance) {
            rec.error_kind = db::ErrorKind::kNone;
            rec.costs_sec = {s};
            if (s < best_s) {
              best_s = s;
              curve.best = std::move(*kernel);
              curve.best_args = std::move(args);
            }
          } else {
            ++curve.wrong;
            rec.error_kind = db::ErrorKind::kWrongResult;
          }
        } else if (probe.outcome == bench::Probe::kOk || probe.outcome == bench::Probe::kTimedOut) {
          // Slow: its probe time (or the limit it ran over) is what the model learns from.
          ++curve.slow;
          rec.error_kind = db::ErrorKind::kNone;
          rec.costs_sec = {probe.outcome == bench::Probe::kOk ? probe.seconds : 2 * limit_s};
        } else {
          ++curve.failed;
        }
      }
      curve.best_s.push_back(best_s);
    }
    curve.measure_s += SecondsSince(t0);
    std::vector<tuner::MeasuredCandidate> results;
    for (size_t i = 0; i < batch.size(); ++i) results.push_back({&batch[i], &records[i]});
    t0 = Clock::now();
    (*policy)->Observe(results);
    curve.search_s += SecondsSince(t0);
    std::fprintf(stderr, "  %s %s: %zu trials, best %.1f GFLOP/s\n", w.name.c_str(), policy_name.c_str(),
                 curve.best_s.size(), w.flops / best_s / 1e9);
  }
  curve.wall_s = SecondsSince(start);
  return curve;
}

void RunWorkload(const bench::Workload& w, const codegen::Target& target, const Settings& settings,
                 const std::vector<double>& peak_gflops, std::vector<tuner::ChartPanel>* panels) {
  if (!settings.filter.empty() && w.name.find(settings.filter) == std::string::npos) return;
  const int64_t out_elems = w.dag->tensor(w.dag->outputs()[0]).NumElements();
  bench::Arrays args = bench::MakeArgs(w.inputs, out_elems);
  auto gflops = [&](double s) { return w.flops / s / 1e9; };
  for (int threads : settings.threads) {
    deploy::ThreadPool pool(threads);
    std::unique_ptr<bench::Compiled> dflt = bench::BuildDefaultKernel(w, target, threads);
    if (!dflt || !bench::CallKernel(*dflt, args, &pool)) {
      std::fprintf(stderr, "%s: no default kernel to check against; row skipped\n", w.name.c_str());
      continue;
    }
    const std::vector<float> reference(args.out(), args.out() + out_elems);
    const double quick_default_s = bench::TimeKernel(*dflt, args, &pool, kMinRepeatMs);
    absl::StatusOr<TempDir> model_dir = TempDir::Create("tunefarm-search-curve");  // the cost models
    if (!model_dir.ok()) {
      std::fprintf(stderr, "%s: %s; row skipped\n", w.name.c_str(), std::string(model_dir.status().message()).c_str());
      continue;
    }

    tuner::ChartPanel panel{
        StrCat(w.name, ", ", threads, " thread", threads > 1 ? "s" : ""), "trials", "best GFLOP/s", {}};
    std::vector<Curve> curves;
    for (const std::string& policy : settings.policies)
      curves.push_back(
          Search(w, policy, target, threads, settings, reference, quick_default_s, &pool, model_dir->path()));
    const double default_s = bench::TimeKernel(*dflt, args, &pool, kFinalRepeatMs, kFinalRepeats);
    w.peer.setup(threads);
    const double peer_s = bench::MedianSecondsPerCall(w.peer.run, 3, 200);
    for (Curve& c : curves) {
      double final_s = NAN;
      if (c.best) final_s = bench::TimeKernel(*c.best, c.best_args, &pool, kFinalRepeatMs, kFinalRepeats);
      std::string at;
      for (int k : kCheckpoints)
        if (k <= static_cast<int>(c.best_s.size()))
          StrAppend(&at, " ", Fixed(gflops(c.best_s[k - 1])));
        else
          StrAppend(&at, "       -");
      std::printf(
          "%-30s %2d %-9s |%s | %7.1f %7.1f %7.1f | %6.2fx %6.2fx | %5.1f%% | %5lld %4lld %4lld %4lld | %6.0f %5.0f "
          "%5.0f %5.0f\n",
          w.name.c_str(), threads, c.policy.c_str(), at.c_str(), gflops(final_s), gflops(default_s), gflops(peer_s),
          default_s / final_s, peer_s / final_s, 100 * gflops(final_s) / peak_gflops[threads],
          static_cast<long long>(c.best_s.size()), static_cast<long long>(c.slow), static_cast<long long>(c.wrong),
          static_cast<long long>(c.failed), c.wall_s, c.search_s, c.build_s, c.measure_s);
      std::fflush(stdout);
      tuner::ChartSeries series{c.policy, {}};
      for (size_t i = 0; i < c.best_s.size(); ++i)
        if (std::isfinite(c.best_s[i])) series.points.push_back({static_cast<double>(i + 1), gflops(c.best_s[i])});
      panel.series.push_back(std::move(series));
    }
    panel.series.push_back({"peer", {{1, gflops(peer_s)}, {static_cast<double>(settings.trials), gflops(peer_s)}}});
    panel.series.push_back(
        {"default", {{1, gflops(default_s)}, {static_cast<double>(settings.trials), gflops(default_s)}}});
    panels->push_back(std::move(panel));
  }
}

}  // namespace

int main() {
  const Settings settings = Settings::FromEnvironment();
  const codegen::Target target = codegen::HostTarget();
  const int lanes = target.VectorLanes(te::DType::kFloat32);
  std::printf("target: %s\ncpu: %s\n", target.ToString().c_str(), bench::CpuModelName().c_str());
  const std::vector<double> peak_gflops = bench::MeasureAndPrintFmaPeaks(settings.threads);
  std::printf("up to %d trials per row in rounds of 64; evolution: population %d, %d generations\n", settings.trials,
              settings.population, settings.generations);
  std::printf(
      "%-30s %2s %-9s | best GFLOP/s after %-29s | %7s %7s %7s | %7s %7s | %6s | %5s %4s %4s %4s | %6s %5s %5s %5s\n",
      "workload", "th", "policy", "64 / 128 / 256 / 512 / 1000", "final", "default", "peer", "dft/b", "peer/b", "%peak",
      "tried", "slow", "wrng", "fail", "wall s", "srch", "build", "meas");
  bench::WorkloadInputs inputs;
  std::vector<tuner::ChartPanel> panels;
  RunWorkload(bench::MatmulWorkload(inputs, 1024, 1024, 1024), target, settings, peak_gflops, &panels);
  for (const auto& p : bench::ResNet18Convs())
    RunWorkload(bench::ConvNchwcWorkload(inputs, "", p, lanes), target, settings, peak_gflops, &panels);
  for (const auto& p : bench::ResNet18Convs()) {
    if (p.r != 3 || p.stride != 1) continue;
    for (int m : {2, 4}) {
      RunWorkload(bench::ConvWinogradWorkload(inputs, p, lanes, m), target, settings, peak_gflops, &panels);
      for (const bench::Workload& stage : bench::WinogradStageWorkloads(inputs, p, lanes, m))
        RunWorkload(stage, target, settings, peak_gflops, &panels);
    }
  }
  std::ofstream(settings.svg) << tuner::LineChartsSvg(panels);
  std::printf("curves: %s\n", settings.svg.c_str());
  return 0;
}
