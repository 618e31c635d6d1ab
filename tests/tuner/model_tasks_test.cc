// Every task of the four shared models through the search space: its sketches are counted and
// printed, TUNEFARM_MODEL_TASK_SAMPLES (default 200) distinct sampled programs per task must
// verify and lower, and TUNEFARM_MODEL_TASK_RUNS of them (default 4; the full check is
// 200) are built into kernels and run at 2 threads on seeded random inputs beside the
// unscheduled (naive) kernel of the same task, whose outputs they must match.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "compiler/tir/layout_transform.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/kernel_runner.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/tuning_task.h"

namespace tunefarm::tuner {
namespace {

using codegen::testing::Backend;
using codegen::testing::KernelRunner;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

// Arguments of `f` filled from `seed`: floats in [-1, 1], integers inside their declared range
// (e.g. gather indices), outputs NaN.
struct KernelArgs {
  std::vector<codegen::testing::Array<char>> arrays;
  std::vector<void*> ptrs;
};

KernelArgs MakeArgs(const tir::PrimFunc& f, uint64_t seed) {
  KernelArgs a;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < f.num_args; ++i) {
    const tir::Buffer& b = f.buffers[i];
    a.arrays.emplace_back(std::max<int64_t>(b.NumBytes(), 1));
    char* p = a.arrays.back().data();
    const int64_t n = b.NumElements();
    if (b.role == tir::ArgRole::kOutput) {
      for (int64_t e = 0; e < n && b.dtype == te::DType::kFloat32; ++e) reinterpret_cast<float*>(p)[e] = NAN;
    } else if (b.dtype == te::DType::kFloat32) {
      std::uniform_real_distribution<float> d(-1, 1);
      for (int64_t e = 0; e < n; ++e) reinterpret_cast<float*>(p)[e] = d(rng);
    } else if (b.dtype == te::DType::kInt64 || b.dtype == te::DType::kInt32) {
      int64_t lo = b.has_range ? b.range_min : 0, hi = b.has_range ? b.range_max : 3;
      for (int64_t e = 0; e < n; ++e) {
        int64_t v = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
        if (b.dtype == te::DType::kInt64) reinterpret_cast<int64_t*>(p)[e] = v;
        else reinterpret_cast<int32_t*>(p)[e] = static_cast<int32_t>(v);
      }
    } else {
      std::memset(p, 0, b.NumBytes());
    }
    a.ptrs.push_back(p);
  }
  return a;
}

// The first output element where `got` and `want` (float32 outputs) differ beyond tolerance.
std::string CompareOutputs(const tir::PrimFunc& f, const KernelArgs& got, const KernelArgs& want) {
  for (int i = 0; i < f.num_args; ++i) {
    const tir::Buffer& b = f.buffers[i];
    if (b.role != tir::ArgRole::kOutput) continue;
    if (b.dtype != te::DType::kFloat32) {
      if (std::memcmp(got.ptrs[i], want.ptrs[i], b.NumBytes()) != 0) return StrCat("output ", b.name, " differs");
      continue;
    }
    const float* g = static_cast<const float*>(got.ptrs[i]);
    const float* w = static_cast<const float*>(want.ptrs[i]);
    // Random weights can make NaN legitimately (Pow of a negative base by a fractional
    // exponent): a NaN must then be NaN in both.
    for (int64_t e = 0; e < b.NumElements(); ++e)
      if (!(std::isnan(g[e]) && std::isnan(w[e])) && !(std::fabs(g[e] - w[e]) <= 1e-3 + 1e-3 * std::fabs(w[e])))
        return StrCat("output ", b.name, "[", e, "]: ", g[e], " vs naive ", w[e]);
  }
  return "";
}

void CheckModel(const std::string& model) {
  const std::string path = StrCat(TUNEFARM_SHARED_DIR, "/models/", model, ".onnx");
  build::BuildOptions options;
  options.target = codegen::HostTarget();
  options.threads = 2;
  auto tasks = ExtractTasksFromModel(path, {}, options);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  ASSERT_FALSE(tasks->empty());
  SearchTarget target = SearchTarget::FromTarget(options.target);
  target.cores = 2;
  const int samples = EnvInt("TUNEFARM_MODEL_TASK_SAMPLES", 200);
  const int runs = std::min(samples, EnvInt("TUNEFARM_MODEL_TASK_RUNS", 4));
  int total_programs = 0, total_runs = 0;
  for (size_t t = 0; t < tasks->size(); ++t) {
    const TuningTask& task = (*tasks)[t];
    const te::TensorDef& out = task.dag->tensor(task.dag->outputs()[0]);
    std::mt19937_64 rng(1000 + t);
    SampleStats stats;
    auto programs = SampleInitialPopulation(task.dag, target, samples, rng, &stats);
    std::printf("%s task %2zu %-28s %s\n", model.c_str(), t, out.name.c_str(), stats.Summary().c_str());
    for (const auto& [reason, message] : stats.first_messages) std::printf("    first %s: %s\n", reason.c_str(), message.c_str());
    // An injective task's space can hold fewer distinct programs than asked for (its loops are
    // only fused, parallel and vectorized): then every draw repeats one, none is invalid.
    EXPECT_FALSE(programs.empty()) << model << " task " << t;
    if (static_cast<int>(programs.size()) < samples) {
      EXPECT_GT(stats.duplicates, stats.invalid_total()) << model << " task " << t;
    }
    EXPECT_LT(stats.invalid_total() * 4, stats.draws) << model << " task " << t << ": most draws must be valid";
    total_programs += static_cast<int>(programs.size());

    auto naive = tir::Lower(schedule::State(task.dag), "naive");
    ASSERT_TRUE(naive.ok()) << naive.status();
    std::vector<tir::PrimFunc> funcs{*naive};
    for (int i = 0; i < runs && i < static_cast<int>(programs.size()); ++i) {
      auto f = tir::Lower(programs[i], StrCat("p", i));
      ASSERT_TRUE(f.ok()) << f.status();
      funcs.push_back(*f);
    }
    auto runner = KernelRunner::Create(funcs, Backend::kSharedObject);
    ASSERT_NE(runner, nullptr);
    KernelArgs want = MakeArgs(*naive, 7 + t);
    ASSERT_EQ(runner->Run("naive", want.ptrs, 1), 0);
    for (size_t i = 1; i < funcs.size(); ++i) {
      KernelArgs got = MakeArgs(*naive, 7 + t);  // the naive kernel's inputs,
      auto rewritten = tir::TransformRewrittenArgs(programs[i - 1], [&](int arg) {
        return std::string_view(got.arrays[arg].data(), naive->buffers[arg].NumBytes());
      });
      ASSERT_TRUE(rewritten.ok()) << rewritten.status();
      for (const auto& [arg, bytes] : *rewritten) {  // in the layout this program reads them
        got.arrays[arg] = codegen::testing::Array<char>(bytes.size());
        std::memcpy(got.arrays[arg].data(), bytes.data(), bytes.size());
        got.ptrs[arg] = got.arrays[arg].data();
      }
      ASSERT_EQ(runner->Run(funcs[i].name, got.ptrs, 2), 0);
      std::string diff = CompareOutputs(funcs[i], got, want);
      EXPECT_EQ(diff, "") << model << " task " << t << " program " << i - 1 << "\n" << programs[i - 1].ToJson();
      ++total_runs;
    }
  }
  std::printf("%s: %zu tasks, %d programs verified and lowered, %d run against the naive kernel\n", model.c_str(),
              tasks->size(), total_programs, total_runs);
}

TEST(ModelTasks, Resnet18) { CheckModel("resnet18"); }
TEST(ModelTasks, MobilenetV2) { CheckModel("mobilenet_v2"); }
TEST(ModelTasks, Squeezenet11) { CheckModel("squeezenet1_1"); }
TEST(ModelTasks, TransformerEncoder) { CheckModel("transformer_encoder"); }

}  // namespace
}  // namespace tunefarm::tuner
