// Every task of the four shared models under the one-thread-per-point GPU schedule (a cuda
// target), the default GPU program (tuner/search_space/gpu_default_program.h), and a program
// drawn from the GPU search space (tuner/search_space/gpu_sketch_rules.h):
// it lowers, its launches fit the device, the whole model's kernels become one PTX module that
// the CUDA toolkit's ptxas assembles for sm_90, and each scheduled kernel computes what the
// task's naive kernel does. No GPU runs here: for the numerics the bound loops are turned back
// into serial loops (what they mean: every block and thread, in turn; a cooperative fetch is
// then done whole by each thread, which computes the same) and shared tiles into local ones,
// and the kernel runs on this CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "common/strings.h"
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/nvptx_codegen.h"
#include "compiler/schedule/gpu_thread_per_point.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/stmt_functor.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/common/ptxas.h"
#include "tuner/search_space/gpu_default_program.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/tuning_task.h"

namespace tunefarm::tuner {
namespace {

using codegen::testing::KernelRunner;

// blockIdx/threadIdx loops as serial loops: the same program for a CPU.
class SerializeBindings : public tir::StmtMutator {
 protected:
  tir::Stmt MutateFor(const tir::Stmt& s) override {
    tir::Stmt body = MutateStmt(s->body);
    if (s->for_kind != tir::ForKind::kThreadBinding) return RebuildFor(s, s->extent, body);
    return tir::For(s->loop_var, s->extent, tir::ForKind::kSerial, body);
  }
};

tir::PrimFunc OnCpu(tir::PrimFunc f, const std::string& name) {
  f.body = SerializeBindings().MutateStmt(f.body);
  for (tir::Buffer& b : f.buffers)
    if (b.scope == tir::BufferScope::kShared) b.scope = tir::BufferScope::kLocal;
  f.name = name;
  return f;
}

// One thread per output point (the tuner's reference), the default program (what an untuned
// model runs), a program drawn from the search space.
enum class Schedule { kThreadPerPoint, kDefaultProgram, kSearched };

// Float inputs in [-1, 1], int64 inputs inside their range, the rest zero.
std::vector<codegen::testing::Array<char>> Inputs(const tir::PrimFunc& f, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<codegen::testing::Array<char>> arrays;
  for (int i = 0; i < f.num_args; ++i) {
    const tir::Buffer& b = f.buffers[i];
    arrays.emplace_back(std::max<int64_t>(b.NumBytes(), 1));  // zeroed, 64-byte aligned
    char* p = arrays.back().data();
    for (int64_t e = 0; e < b.NumElements() && b.role != tir::ArgRole::kOutput; ++e) {
      if (b.dtype == te::DType::kFloat32) {
        reinterpret_cast<float*>(p)[e] = std::uniform_real_distribution<float>(-1, 1)(rng);
      } else if (b.dtype == te::DType::kInt64) {
        const int64_t lo = b.has_range ? b.range_min : 0, hi = b.has_range ? b.range_max : 3;
        reinterpret_cast<int64_t*>(p)[e] = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
      }
    }
  }
  return arrays;
}

void CheckModel(const std::string& model, Schedule schedule) {
  const codegen::Target cuda = codegen::Target::Parse("cuda -arch=sm_90 -num-sms=132").value();
  build::BuildOptions options;
  options.target = cuda;  // the GPU's tasks: plain NCHW, no Winograd (as the job runner extracts them)
  options.threads = 1;
  auto tasks = ExtractTasksFromModel(StrCat(TUNEFARM_SHARED_DIR, "/models/", model, ".onnx"), {}, options);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  std::vector<tir::PrimFunc> gpu_funcs;
  int launches = 0;
  for (size_t t = 0; t < tasks->size(); ++t) {
    const TuningTask& task = (*tasks)[t];
    absl::StatusOr<schedule::State> state = schedule::ApplyGpuThreadPerPointSchedule(task.dag, schedule::GpuRuleContext{});
    if (schedule == Schedule::kDefaultProgram) state = GpuDefaultProgram(task.dag, SearchTarget::FromTarget(cuda));
    if (schedule == Schedule::kSearched) {
      std::mt19937_64 rng(t);
      SampleStats stats;
      std::vector<schedule::State> drawn =
          SampleInitialPopulation(task.dag, SearchTarget::FromTarget(cuda), 1, rng, &stats);
      ASSERT_EQ(drawn.size(), 1u) << model << " task " << t << ": " << stats.Summary() << "\n"
                                  << (stats.first_messages.empty() ? "" : stats.first_messages.begin()->second);
      state = drawn[0];
    }
    ASSERT_TRUE(state.ok()) << model << " task " << t << ": " << state.status();
    auto f = tir::Lower(*state, StrCat("t", t));
    ASSERT_TRUE(f.ok()) << model << " task " << t << ": " << f.status() << "\n" << state->ToString();
    auto planned = tir::PlanGpuLaunches(*f, codegen::GpuLimitsOf(cuda));
    ASSERT_TRUE(planned.ok()) << planned.status();
    launches += static_cast<int>(planned->size());
    gpu_funcs.push_back(*f);

    // The numerics: the scheduled kernel, serialized, beside the naive kernel.
    auto naive = tir::Lower(schedule::State(task.dag), "naive");
    ASSERT_TRUE(naive.ok()) << naive.status();
    auto runner = KernelRunner::Create({*naive, OnCpu(*f, "gpu")}, codegen::testing::Backend::kSharedObject);
    ASSERT_NE(runner, nullptr);
    auto want = Inputs(*naive, 11 + t), got = Inputs(*naive, 11 + t);
    std::vector<void*> want_ptrs, got_ptrs;
    for (auto& a : want) want_ptrs.push_back(a.data());
    for (auto& a : got) got_ptrs.push_back(a.data());
    ASSERT_EQ(runner->Run("naive", want_ptrs, 1), 0);
    ASSERT_EQ(runner->Run("gpu", got_ptrs, 1), 0);
    for (int i = naive->num_args - 1; i >= 0 && naive->buffers[i].role == tir::ArgRole::kOutput; --i) {
      const tir::Buffer& b = naive->buffers[i];
      if (b.dtype != te::DType::kFloat32) {
        EXPECT_EQ(std::memcmp(got[i].data(), want[i].data(), b.NumBytes()), 0) << model << " task " << t;
        continue;
      }
      const float* g = reinterpret_cast<const float*>(got[i].data());
      const float* w = reinterpret_cast<const float*>(want[i].data());
      int64_t bad = -1;
      for (int64_t e = 0; e < b.NumElements() && bad < 0; ++e) {
        if (!(std::isnan(g[e]) && std::isnan(w[e])) && !(std::fabs(g[e] - w[e]) <= 1e-4 + 1e-4 * std::fabs(w[e]))) bad = e;
      }
      EXPECT_EQ(bad, -1) << model << " task " << t << " output " << b.name << "[" << bad << "]: " << g[bad]
                         << " vs naive " << w[bad] << "\n" << state->ToString();
    }
  }
  absl::StatusOr<std::string> ptx = codegen::BuildKernelLibrary(gpu_funcs, cuda);
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  std::printf("%s (%s): %zu tasks, %d launches, %zu bytes of PTX\n", model.c_str(),
              schedule == Schedule::kSearched ? "searched" : schedule == Schedule::kDefaultProgram ? "default program" : "thread per point", tasks->size(), launches, ptx->size());
  const std::string ptxas = testing::FindPtxas();
  // Skipped only where the CUDA toolkit's ptxas is absent (the rule: CI has it): only the
  // assembly step, after the lowering, launch and numerics checks above ran (tests/common/ptxas.h).
  if (ptxas.empty()) GTEST_SKIP() << testing::kNoPtxasReason;
  EXPECT_EQ(testing::AssemblePtx(ptxas, *ptx, "sm_90"), "");
}

TEST(GpuModelTasks, Resnet18) { CheckModel("resnet18", Schedule::kThreadPerPoint); }
TEST(GpuModelTasks, MobilenetV2) { CheckModel("mobilenet_v2", Schedule::kThreadPerPoint); }
TEST(GpuModelTasks, Squeezenet11) { CheckModel("squeezenet1_1", Schedule::kThreadPerPoint); }
TEST(GpuModelTasks, TransformerEncoder) { CheckModel("transformer_encoder", Schedule::kThreadPerPoint); }
TEST(GpuModelTasks, Resnet18DefaultProgram) { CheckModel("resnet18", Schedule::kDefaultProgram); }
TEST(GpuModelTasks, MobilenetV2DefaultProgram) { CheckModel("mobilenet_v2", Schedule::kDefaultProgram); }
TEST(GpuModelTasks, Squeezenet11DefaultProgram) { CheckModel("squeezenet1_1", Schedule::kDefaultProgram); }
TEST(GpuModelTasks, TransformerEncoderDefaultProgram) { CheckModel("transformer_encoder", Schedule::kDefaultProgram); }
TEST(GpuModelTasks, Resnet18Searched) { CheckModel("resnet18", Schedule::kSearched); }
TEST(GpuModelTasks, MobilenetV2Searched) { CheckModel("mobilenet_v2", Schedule::kSearched); }
TEST(GpuModelTasks, Squeezenet11Searched) { CheckModel("squeezenet1_1", Schedule::kSearched); }
TEST(GpuModelTasks, TransformerEncoderSearched) { CheckModel("transformer_encoder", Schedule::kSearched); }

}  // namespace
}  // namespace tunefarm::tuner
