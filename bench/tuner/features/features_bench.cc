// What the cost model's input costs per candidate: for programs the search space draws (GEMM
// 1024^3 and ResNet-18's 3x3 conv2d on 56x56x64 with bias and relu), the mean time per program
// to replay its schedule from JSON, lower it to the loop IR and extract its per-store features.
// The tuner does all three for thousands of candidates a round; the aim is <= 1 ms per
// conv2d program for the three together.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "compiler/codegen/host_target.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/matmul.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/lower.h"
#include "tuner/features/program_features.h"
#include "tuner/search_space/initial_population.h"

using namespace tunefarm;

namespace {

using bench::Clock;
using bench::SecondsSince;
using DagPtr = std::shared_ptr<const te::ComputeDag>;

DagPtr ConvBiasReluDag() {
  te::DagBuilder b;
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, 64, 56, 56});
  auto w = b.Placeholder("w", te::DType::kFloat32, {64, 64, 3, 3}, true);
  auto bias = b.Placeholder("bias", te::DType::kFloat32, {64}, true);
  return b.Build({ops::Relu(b, ops::BiasAdd(b, ops::Conv2dNchw(b, x, w, p), bias, 1))});
}

template <typename T>
T OrDie(absl::StatusOr<T> v, const char* what) {
  if (!v.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", what, std::string(v.status().message()).c_str());
    std::exit(1);
  }
  return *std::move(v);
}

void Report(const std::string& task, DagPtr dag, const tuner::SearchTarget& target) {
  constexpr int kPrograms = 200;
  std::mt19937_64 rng(1);
  std::vector<schedule::State> programs = tuner::SampleInitialPopulation(dag, target, kPrograms, rng, nullptr);
  std::vector<std::string> records;
  for (const auto& p : programs) records.push_back(p.ToJson());
  if (records.empty()) {
    std::fprintf(stderr, "%s: no programs sampled\n", task.c_str());
    std::exit(1);
  }

  // Whole passes over the programs, each stage timed on its own, for at least a second.
  double replay_s = 0, lower_s = 0, features_s = 0;
  int64_t runs = 0, stores = 0;
  const Clock::time_point start = Clock::now();
  while (SecondsSince(start) < 1.0) {
    for (const std::string& json : records) {
      Clock::time_point t0 = Clock::now();
      schedule::State state = OrDie(schedule::State::FromJson(dag, json), "replay");
      Clock::time_point t1 = Clock::now();
      tir::PrimFunc func = OrDie(tir::Lower(state, "kernel"), "lower");
      Clock::time_point t2 = Clock::now();
      tuner::FeatureMatrix m = OrDie(tuner::ExtractFeatures(func), "features");
      Clock::time_point t3 = Clock::now();
      replay_s += std::chrono::duration<double>(t1 - t0).count();
      lower_s += std::chrono::duration<double>(t2 - t1).count();
      features_s += std::chrono::duration<double>(t3 - t2).count();
      stores += m.rows;
      ++runs;
    }
  }
  const double n = static_cast<double>(runs), ms = 1e3 / n;
  std::printf("%s: %zu programs, %lld runs\n", task.c_str(), records.size(), static_cast<long long>(runs));
  std::printf("  replay                %8.3f ms per program\n", replay_s * ms);
  std::printf("  lower                 %8.3f ms per program\n", lower_s * ms);
  std::printf("  features              %8.3f ms per program (%.1f stores, %.2f us per store)\n", features_s * ms,
              static_cast<double>(stores) / n, features_s * 1e6 / static_cast<double>(stores));
  std::printf("  replay+lower+features %8.3f ms per program   (aim for conv2d: <= 1 ms)\n",
              (replay_s + lower_s + features_s) * ms);
}

}  // namespace

int main() {
  std::printf("cpu: %s\n", bench::CpuModelName().c_str());
  std::printf("features per store: %zu\n\n", tuner::StoreFeatureNames().size());
  tuner::SearchTarget target = tuner::SearchTarget::FromTarget(codegen::HostTarget());
  target.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Report("GEMM 1024x1024x1024", bench::MatmulDag(1024, 1024, 1024), target);
  Report("conv2d NCHW 1x64x56x56 3x3 pad 1 + bias + relu", ConvBiasReluDag(), target);
  return 0;
}
