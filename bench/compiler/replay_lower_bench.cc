// How long the tuner pays per candidate before codegen, on ResNet-18's 3x3 conv2d on 56x56x64
// with bias and relu:
//  - a typical hand-written Ansor-style schedule: replaying it from its JSON on the task's DAG,
//    then lowering it to the loop IR. The tuner does this thousands of times a round
//    (DESIGN.md "The tuner": about a millisecond);
//  - the tuner's search space on the same task, in the NCHW[x]c form the graph compiler
//    produces and in plain NCHW: how many sketches, how fast sketch generation and random
//    annotation make programs on one core, and the mean replay + lower time of the programs
//    they make.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/timing.h"
#include "common/allocator_name.h"
#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/elementwise.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/lower.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/random_annotation.h"
#include "tuner/search_space/search_target.h"
#include "tuner/search_space/sketch_rules.h"

using namespace tunefarm;

namespace {

using bench::Clock;
using bench::SecondsSince;

// ResNet-18's 3x3 conv on 56x56x64 (pad 1) with bias and relu. block == 0: NCHW. Otherwise the
// layout pass's form: activations NCHW[block]c, weights OIHW[block]i[block]o, bias
// [K/block, 1, 1, block].
std::shared_ptr<const te::ComputeDag> ConvBiasReluDag(int64_t block) {
  constexpr int64_t kC = 64, kHw = 56;
  te::DagBuilder b;
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  if (block == 0) {
    auto x = b.Placeholder("x", te::DType::kFloat32, {1, kC, kHw, kHw});
    auto w = b.Placeholder("w", te::DType::kFloat32, {kC, kC, 3, 3}, true);
    auto bias = b.Placeholder("bias", te::DType::kFloat32, {kC}, true);
    auto conv = ops::Conv2dNchw(b, x, w, p);
    return b.Build({ops::Relu(b, ops::BiasAdd(b, conv, bias, 1))});
  }
  const int64_t cb = kC / block;
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, cb, kHw, kHw, block});
  auto w = b.Placeholder("w", te::DType::kFloat32, {cb, cb, 3, 3, block, block}, true);
  auto bias = b.Placeholder("bias", te::DType::kFloat32, {cb, 1, 1, block}, true);
  auto conv = *ops::Conv2dNchwc(b, x, w, p);
  auto biased = b.Compute("bias_add", conv.shape,
                          [&](const te::DagBuilder::Axes& i) { return conv(i) + ops::BroadcastRead(bias, i); });
  return b.Build({ops::Relu(b, biased)});
}

// Ansor-style: multi-level tiles of the output, a local accumulator computed per tile, padding
// and bias inlined.
schedule::State TypicalConvSchedule() {
  schedule::State s(ConvBiasReluDag(0));
  // 0 x, 1 w, 2 bias, 3 pad, 4 conv, 5 bias_add, 6 relu
  auto check = [](absl::Status st) {
    if (!st.ok()) {
      std::fprintf(stderr, "schedule step failed: %s\n", std::string(st.message()).c_str());
      std::exit(1);
    }
  };
  check(s.ComputeInline(3));
  check(s.ComputeInline(5));
  check(s.CacheWrite(4, "local"));  // 4 conv.local, 5 conv, 6 bias_add, 7 relu
  check(s.ComputeInline(5));
  // relu: n k oh ow -> k.0 oh.0 ow.0 | k.1 oh.1 ow.1
  check(s.Split(7, 1, {8}));            // n k.0 k.1 oh ow
  check(s.Split(7, 3, {4}));            // n k.0 k.1 oh.0 oh.1 ow
  check(s.Split(7, 5, {8}));            // n k.0 k.1 oh.0 oh.1 ow.0 ow.1
  check(s.Reorder(7, {0, 1, 3, 5, 2, 4, 6}));
  check(s.Fuse(7, {0, 1, 2, 3}));       // n@k.0@oh.0@ow.0 k.1 oh.1 ow.1
  check(s.Annotate(7, 0, schedule::IterAnnotation::kParallel));
  check(s.Annotate(7, 3, schedule::IterAnnotation::kVectorize));
  // conv.local: n k oh ow rc ry rx, tiled to match and computed per output tile
  check(s.Split(4, 1, {8}));
  check(s.Split(4, 3, {4}));
  check(s.Split(4, 5, {8}));
  check(s.Split(4, 7, {8}));            // rc
  check(s.Reorder(4, {0, 1, 3, 5, 7, 9, 10, 2, 8, 4, 6}));
  check(s.Annotate(4, 10, schedule::IterAnnotation::kVectorize));
  check(s.PragmaAutoUnroll(4, 0, 64));
  check(s.ComputeAt(4, 7, 0));
  return s;
}

// Sketches, annotation throughput and the replay + lower time of sampled programs for `dag`.
void ReportSearchSpace(const std::string& task, std::shared_ptr<const te::ComputeDag> dag,
                       const tuner::SearchTarget& target) {
  constexpr int kPrograms = 256;
  std::vector<schedule::State> sketches;
  const double sketch_s = bench::MedianSecondsPerCall([&] { sketches = tuner::GenerateSketches(dag, target); }, 5, 100);

  // Random annotation alone, on one core, for about a second.
  std::mt19937_64 rng(1);
  int64_t draws = 0, annotated = 0;
  Clock::time_point start = Clock::now();
  while (SecondsSince(start) < 1.0) {
    for (int i = 0; i < 64; ++i, ++draws)
      annotated += tuner::AnnotateRandomly(sketches[draws % sketches.size()], target, rng).ok();
  }
  const double annotate_s = SecondsSince(start);

  // The whole initial population: sketches, annotation, the lowering check and dedup.
  tuner::SampleStats stats;
  start = Clock::now();
  std::vector<schedule::State> programs = tuner::SampleInitialPopulation(dag, target, kPrograms, rng, &stats);
  const double sample_s = SecondsSince(start);

  // Replay each sampled program from its JSON, then lower it: all of them, for about a second.
  std::vector<std::string> records;
  for (const auto& p : programs) records.push_back(p.ToJson());
  int64_t replays = 0;
  start = Clock::now();
  while (SecondsSince(start) < 1.0 && !records.empty()) {
    for (const std::string& json : records) {
      auto replayed = schedule::State::FromJson(dag, json);
      if (!replayed.ok()) {
        std::fprintf(stderr, "replay failed: %s\n", std::string(replayed.status().message()).c_str());
        std::exit(1);
      }
      auto f = tir::Lower(*replayed, "kernel");
      if (!f.ok()) {
        std::fprintf(stderr, "lower failed: %s\n", std::string(f.status().message()).c_str());
        std::exit(1);
      }
      ++replays;
    }
  }
  const double replay_lower_s = replays ? SecondsSince(start) / static_cast<double>(replays) : 0;

  std::printf("%s\n", task.c_str());
  std::printf("  sketches                %8zu\n", sketches.size());
  std::printf("  sketch generation       %8.3f ms (once per task)\n", sketch_s * 1e3);
  std::printf("  random annotation       %8.0f programs/s (%.0f%% of %lld draws valid)   (aim: >= 5000/s)\n",
              static_cast<double>(annotated) / annotate_s, 100.0 * static_cast<double>(annotated) / draws,
              static_cast<long long>(draws));
  std::printf("  sketches + annotation   %8.0f programs/s (one generation, then the draws above)\n",
              static_cast<double>(annotated) / (sketch_s + annotate_s));
  std::printf("  initial population      %8.0f programs/s (+ lowering check, dedup: %s)\n",
              static_cast<double>(programs.size()) / sample_s, stats.Summary().c_str());
  std::printf("  replay + lower          %8.3f ms per sampled program, mean over %zu programs   (aim: <= 1 ms)\n",
              replay_lower_s * 1e3, programs.size());
}

}  // namespace

int main() {
  std::printf("cpu: %s\nallocator: %s\n\n", bench::CpuModelName().c_str(), AllocatorName().c_str());
  schedule::State s = TypicalConvSchedule();
  std::string json = s.ToJson();
  auto dag = s.original_dag();
  size_t nodes = 0;
  double replay = bench::MedianSecondsPerCall([&] {
    auto r = schedule::State::FromJson(dag, json);
    if (!r.ok()) std::abort();
    nodes += r->steps().size();
  });
  double replay_lower = bench::MedianSecondsPerCall([&] {
    auto r = schedule::State::FromJson(dag, json);
    auto f = tir::Lower(*r, "conv");
    if (!f.ok()) {
      std::fprintf(stderr, "%s\n", std::string(f.status().message()).c_str());
      std::abort();
    }
  });
  std::printf("conv2d 64x56x56 3x3 + bias + relu, %zu steps:\n%s", s.steps().size(), s.ToString().c_str());
  std::printf("replay          %8.3f ms\n", replay * 1e3);
  std::printf("replay + lower  %8.3f ms   (target: about 1 ms)\n", replay_lower * 1e3);

  // The tuner's search space on the same task, measured on one thread; the programs are drawn
  // for all of this machine's cores.
  const codegen::Target host = codegen::HostTarget();
  tuner::SearchTarget target = tuner::SearchTarget::FromTarget(host);
  target.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int64_t block = bench::Block(64, target.vector_lanes);
  std::printf("\nsearch space (%d lanes, %d vector registers, %d cores, L2 %lld KiB):\n", target.vector_lanes,
              target.vector_registers, target.cores, static_cast<long long>(target.l2_bytes / 1024));
  const std::string task = "1x64x56x56 3x3 pad 1 + bias + relu";
  ReportSearchSpace(StrCat("conv2d NCHW", block, "c ", task), ConvBiasReluDag(block), target);
  ReportSearchSpace(StrCat("conv2d NCHW ", task), ConvBiasReluDag(0), target);
  return nodes == 0;
}
