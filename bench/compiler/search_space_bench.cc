// How good the tuner's search space is before any cost model: random search over the sketches.
// For each workload and thread count, N distinct valid programs of the initial population
// (tuner/search_space/initial_population.h, a fixed seed) are built and timed, and the fastest
// is kept. Every timed program's output is checked against the default schedule's, so a wrong
// kernel is counted as wrong and never reported as the best. A candidate is first probed in a
// child process, stopped once it is clearly slower than the best so far: random programs range
// over three orders of magnitude, and the slowest would otherwise take most of the run. The
// best is shown beside the default schedule (compiler/schedule/default_rules.h) and the peer
// measured in the same run (OpenBLAS sgemm/sgemv, oneDNN's convolution), and as a fraction of
// the FMA peak.
//
// Workloads: GEMM 1024^3 with B constant; ResNet-18's five conv2d layers in the NCHW[x]c form
// the layout pass gives them (x = the largest divisor of C up to the vector lanes, weights
// packed); MobileNetV2's 3x3 depthwise conv on 144x56x56, also NCHW[x]c; the 1x1000x512 dense
// layer.
//
// Environment:
//   TUNEFARM_SEARCH_SAMPLES        programs per row (default 256)
//   TUNEFARM_SEARCH_THREADS        thread counts, e.g. "1" or "1,2" (default 1,2)
//   TUNEFARM_SEARCH_MIN_REPEAT_MS  the shortest timing repeat of a candidate (default 10); the
//                                  best and the default are timed again with 5 x 100 ms
//   TUNEFARM_SEARCH_SEED           the sampling seed (default 1)
//   TUNEFARM_SEARCH_BUILD_THREADS  programs compiled at once, before timing (default: all cores)
//   TUNEFARM_BENCH_VERBOSE         one line per candidate on stderr
//   TUNEFARM_BENCH_FILTER          only the rows whose name contains the text
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/compiler/bench_workloads.h"
#include "bench/compiler/kernel_probe.h"
#include "bench/compiler/fma_peak.h"
#include "bench/compiler/peers.h"
#include "bench/timing.h"
#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "compiler/schedule/default_rules.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/search_target.h"

using namespace tunefarm;

namespace {

using bench::Clock;
using bench::SecondsSince;
using bench::Probe;
using bench::Workload;

// A candidate whose probe call (ProbeInChild) takes this many times as long as the best so far
// is not timed further: it cannot win, and a slow program's calls would dominate the run. The
// probe is stopped there (for both its calls), plus time to fork and start the child's
// threads. Before there is a best, the limit is kFirstLimitFactor x the default schedule.
constexpr double kPruneFactor = 4;
constexpr double kFirstLimitFactor = 25;
constexpr double kProbeOverheadSeconds = 0.05;
// Outputs within this fraction of the reference's largest magnitude count as equal (float sums
// in another order differ by far less; a wrong loop bound or index by far more).
constexpr double kRelativeTolerance = 1e-4;
// How the best program and the default are timed for the row.
constexpr int kFinalRepeats = 5;
constexpr double kFinalRepeatMs = 100;

struct Settings {
  int samples = 256;
  std::vector<int> threads = {1, 2};
  double min_repeat_ms = 10;
  uint64_t seed = 1;
  std::string filter;
  bool verbose = false;
  int build_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  static Settings FromEnvironment() {
    Settings s;
    if (const char* v = std::getenv("TUNEFARM_SEARCH_SAMPLES")) s.samples = std::max(1, std::atoi(v));
    s.threads = bench::ThreadCountsFromEnvironment("TUNEFARM_SEARCH_THREADS", s.threads);
    if (const char* v = std::getenv("TUNEFARM_SEARCH_MIN_REPEAT_MS")) s.min_repeat_ms = std::max(0.0, std::atof(v));
    if (const char* v = std::getenv("TUNEFARM_SEARCH_SEED")) s.seed = std::strtoull(v, nullptr, 10);
    if (const char* v = std::getenv("TUNEFARM_BENCH_FILTER")) s.filter = v;
    s.verbose = std::getenv("TUNEFARM_BENCH_VERBOSE") != nullptr;
    if (const char* v = std::getenv("TUNEFARM_SEARCH_BUILD_THREADS")) s.build_threads = std::max(1, std::atoi(v));
    return s;
  }
};

// What one row's random search found.
struct SearchResult {
  tuner::SampleStats stats;
  int64_t built = 0, build_failed = 0;
  int64_t crashed = 0, call_failed = 0;  // the probe died, or the kernel returned an error
  int64_t slow = 0;                      // the probe ran over kPruneFactor x the best so far
  int64_t wrong = 0;                     // timed, but the output differs from the default's
  std::string first_build_error;
  float worst_wrong_diff = 0;
  std::unique_ptr<bench::Compiled> best;
  bench::Arrays best_args;  // its arguments (its weights may be in a rewritten layout)
  int best_index = -1;
  double best_s = std::numeric_limits<double>::infinity();  // from the search's short timing
  double wall_s = 0;
  double sample_s = 0, build_s = 0;  // parts of wall_s: sampling, and compiling
};

float MaxAbs(const std::vector<float>& v) {
  float m = 0;
  for (float x : v) m = std::max(m, std::fabs(x));
  return m;
}

// Every program's shared object, compiled on `threads` threads at once (before any timing, so
// the builds disturb no measurement).
std::vector<absl::StatusOr<std::string>> CompileAll(const std::vector<schedule::State>& programs,
                                                    const codegen::Target& target, int threads) {
  std::vector<absl::StatusOr<std::string>> objects(programs.size(), absl::UnknownError("not built"));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < programs.size(); i = next++) objects[i] = bench::CompileKernel(programs[i], target);
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (auto& t : workers) t.join();
  return objects;
}

// Samples programs for `threads` cores, then builds, runs, checks and times each on `pool`.
// `default_s`: the default schedule's time per call, which bounds the first probes.
SearchResult RandomSearch(const Workload& w, const codegen::Target& target, int threads, const Settings& settings,
                          const std::vector<float>& reference, double default_s, deploy::ThreadPool* pool) {
  SearchResult r;
  const Clock::time_point start = Clock::now();
  tuner::SearchTarget space = tuner::SearchTarget::FromTarget(target);
  space.cores = threads;
  std::mt19937_64 rng(settings.seed);
  std::vector<schedule::State> programs = tuner::SampleInitialPopulation(w.dag, space, settings.samples, rng, &r.stats);
  r.sample_s = SecondsSince(start);

  const float tolerance = static_cast<float>(kRelativeTolerance * std::max(1.0f, MaxAbs(reference)));
  const Clock::time_point build_start = Clock::now();
  std::vector<absl::StatusOr<std::string>> objects = CompileAll(programs, target, settings.build_threads);
  r.build_s = SecondsSince(build_start);
  for (size_t i = 0; i < programs.size(); ++i) {
    const std::string name = StrCat(w.name, " #", i);
    auto kernel = objects[i].ok() ? bench::LoadKernel(name, *objects[i])
                                  : absl::StatusOr<std::unique_ptr<bench::Compiled>>(objects[i].status());
    objects[i] = std::string();  // loaded: the bytes are not needed again
    // A program that rewrote its weights' layout gets them transformed (untimed).
    absl::StatusOr<bench::Arrays> own_args =
        kernel.ok() ? bench::MakeArgsFor(programs[i], w.inputs, static_cast<int64_t>(reference.size()))
                    : absl::StatusOr<bench::Arrays>(kernel.status());
    if (!own_args.ok()) {
      if (r.build_failed++ == 0) r.first_build_error = StrCat(name, ": ", std::string(own_args.status().message()));
      continue;
    }
    bench::Arrays& args = *own_args;
    float* out = args.out();
    ++r.built;
    const double limit_s = std::min(kPruneFactor * r.best_s, kFirstLimitFactor * default_s);
    const Probe probe = bench::ProbeInChild(**kernel, args, threads, 2 * limit_s + kProbeOverheadSeconds);
    if (probe.outcome != Probe::kOk || probe.seconds > limit_s) {
      if (probe.outcome == Probe::kOk || probe.outcome == Probe::kTimedOut) ++r.slow;
      if (probe.outcome == Probe::kCrashed) ++r.crashed;
      if (probe.outcome == Probe::kFailed) ++r.call_failed;
      if (settings.verbose) {
        const char* what = probe.outcome == Probe::kTimedOut  ? "stopped at the limit"
                           : probe.outcome == Probe::kCrashed ? "crashed"
                           : probe.outcome == Probe::kFailed  ? "failed"
                                                              : "slow";
        std::fprintf(stderr, "    #%zu probe %.2f ms (limit %.2f ms): %s\n", i, probe.seconds * 1e3, limit_s * 1e3,
                     what);
      }
      continue;
    }
    std::fill(out, out + reference.size(), NAN);  // a kernel that writes nothing cannot pass
    const double s = bench::TimeKernel(**kernel, args, pool, settings.min_repeat_ms);
    const float diff = bench::MaxDiff(out, reference);
    if (settings.verbose)
      std::fprintf(stderr, "    #%zu probe %.2f ms, median %.2f ms, max|diff| %.1e\n", i, probe.seconds * 1e3, s * 1e3,
                   diff);
    if (!(diff <= tolerance)) {  // NaN included
      ++r.wrong;
      r.worst_wrong_diff =
          std::isnan(diff) || std::isnan(r.worst_wrong_diff) ? NAN : std::max(r.worst_wrong_diff, diff);
      continue;
    }
    if (s < r.best_s) {
      r.best_s = s;
      r.best = std::move(kernel.value());
      r.best_args = std::move(args);
      r.best_index = static_cast<int>(i);
    }
  }
  r.wall_s = SecondsSince(start);
  return r;
}

// A row's timings (seconds per call) and output checks.
struct RowFigures {
  double best_s = NAN, default_s = NAN, peer_s = NAN;
  float best_vs_default = NAN, default_vs_peer = NAN;
};

void PrintRow(const Workload& w, int threads, const SearchResult& r, const RowFigures& f, double peak_gflops) {
  auto gflops = [&](double s) { return w.flops / s / 1e9; };
  std::printf(
      "%-34s %2d | %5lld %5lld %5lld %5lld %5lld | %7.1f %7.1f %7.1f | %6.2fx %6.2fx | %5.1f%% | %8.1e %8.1e | "
      "%7.1f\n",
      w.name.c_str(), threads, static_cast<long long>(r.stats.sketches), static_cast<long long>(r.stats.valid),
      static_cast<long long>(r.built), static_cast<long long>(r.slow), static_cast<long long>(r.wrong),
      gflops(f.best_s), gflops(f.default_s), gflops(f.peer_s), f.default_s / f.best_s, f.peer_s / f.best_s,
      100 * gflops(f.best_s) / peak_gflops, f.best_vs_default, f.default_vs_peer, r.wall_s);
  std::fflush(stdout);
  std::fprintf(stderr,
               "  %s, %d thread%s: %s; built %lld, build failed %lld%s%s, crashed %lld, call failed %lld, slow %lld, "
               "wrong %lld (worst %.1e), best #%d (%.1f GFLOP/s in the search); %.1f s sampling, %.1f s compiling\n",
               w.name.c_str(), threads, threads > 1 ? "s" : "", r.stats.Summary().c_str(),
               static_cast<long long>(r.built), static_cast<long long>(r.build_failed),
               r.first_build_error.empty() ? "" : ": ", r.first_build_error.c_str(), static_cast<long long>(r.crashed),
               static_cast<long long>(r.call_failed), static_cast<long long>(r.slow), static_cast<long long>(r.wrong),
               r.worst_wrong_diff, r.best_index, gflops(r.best_s), r.sample_s, r.build_s);
}

void RunWorkload(const Workload& w, const codegen::Target& target, const Settings& settings,
                 const std::vector<double>& peak_gflops) {
  if (!settings.filter.empty() && w.name.find(settings.filter) == std::string::npos) return;
  const int64_t out_elems = w.dag->tensor(w.dag->outputs()[0]).NumElements();
  bench::Arrays args = bench::MakeArgs(w.inputs, out_elems);
  for (int threads : settings.threads) {
    deploy::ThreadPool pool(threads);
    // The default schedule gives the reference output and the first probes' limit.
    std::unique_ptr<bench::Compiled> dflt = bench::BuildDefaultKernel(w, target, threads);
    if (!dflt || !bench::CallKernel(*dflt, args, &pool)) {
      std::fprintf(stderr, "%s: no default kernel to check against; row skipped\n", w.name.c_str());
      continue;
    }
    const std::vector<float> reference(args.out(), args.out() + out_elems);
    const double quick_default_s = bench::TimeKernel(*dflt, args, &pool, settings.min_repeat_ms);

    SearchResult r = RandomSearch(w, target, threads, settings, reference, quick_default_s, &pool);

    // The best and the default timed alike, then the peer.
    RowFigures f;
    if (r.best) {
      std::fill(r.best_args.out(), r.best_args.out() + out_elems, NAN);
      f.best_s = bench::TimeKernel(*r.best, r.best_args, &pool, kFinalRepeatMs, kFinalRepeats);
      f.best_vs_default = bench::MaxDiff(r.best_args.out(), reference);
    }
    f.default_s = bench::TimeKernel(*dflt, args, &pool, kFinalRepeatMs, kFinalRepeats);
    w.peer.setup(threads);
    f.peer_s = bench::MedianSecondsPerCall(w.peer.run, 3, 200);
    const std::vector<float> ours = w.to_peer_layout ? w.to_peer_layout(reference.data()) : reference;
    f.default_vs_peer = bench::MaxDiff(ours.data(), w.peer.output());
    PrintRow(w, threads, r, f, peak_gflops[threads]);
  }
}

}  // namespace

int main() {
  const Settings settings = Settings::FromEnvironment();
  const codegen::Target target = codegen::HostTarget();
  const int lanes = target.VectorLanes(te::DType::kFloat32);
  std::printf("target: %s\ncpu: %s\n", target.ToString().c_str(), bench::CpuModelName().c_str());
  const std::vector<double> peak_gflops = bench::MeasureAndPrintFmaPeaks(settings.threads);
  std::printf("random search: %d programs a row (seed %llu), no cost model; each timed with >= %.0f ms repeats\n",
              settings.samples, static_cast<unsigned long long>(settings.seed), settings.min_repeat_ms);
  std::printf(
      "programs: valid (distinct, sampled), built, slow (a probe call over %.0fx the best so far: not "
      "timed), wrong (timed; output differs from the default's)\n",
      kPruneFactor);
  std::printf(
      "GFLOP/s; ratios are default time / best time and peer time / best time (>1: the search's best is "
      "faster); max|diff| of the best vs the default, and of the default vs the peer\n");
  std::printf("%-34s %2s | %5s %5s %5s %5s %5s | %7s %7s %7s | %7s %7s | %6s | %8s %8s | %7s\n", "workload", "th",
              "sktch", "valid", "built", "slow", "wrong", "best", "default", "peer", "best/d", "peer/b", "%peak",
              "best-dft", "dft-peer", "search s");

  bench::WorkloadInputs inputs;
  RunWorkload(bench::MatmulWorkload(inputs, 1024, 1024, 1024), target, settings, peak_gflops);
  for (const auto& p : bench::ResNet18Convs()) RunWorkload(bench::ConvNchwcWorkload(inputs, "", p, lanes), target, settings, peak_gflops);
  const bench::ConvShape mobilenet_v2_depthwise{1, 144, 56, 56, 144, 3, 3, 1, 1, /*groups=*/144};
  RunWorkload(bench::ConvNchwcWorkload(inputs, "dw ", mobilenet_v2_depthwise, lanes), target, settings, peak_gflops);
  RunWorkload(bench::MatmulWorkload(inputs, 1, 1000, 512), target, settings, peak_gflops);
  return 0;
}
