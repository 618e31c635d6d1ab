// The memory plan of every shared model, call by call: the argument byte ranges of each kernel
// call are pairwise disjoint and 64-byte aligned, inside their space, and the arena is within
// 1.3x of the most bytes live at any one step (DESIGN.md "Graph passes").
#include <gtest/gtest.h>

#include <cstdio>

#include "compiler/build/model_builder.h"
#include "compiler/codegen/host_target.h"
#include "compiler/frontend/onnx_importer.h"

namespace tunefarm::build {
namespace {

int64_t Bytes(const PlanValue& v) { return v.type.NumElements() * te::DTypeBytes(v.type.dtype); }

class MemoryPlanModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MemoryPlanModelTest, EveryCallHasDisjointAlignedArguments) {
  auto g = frontend::ImportOnnxFile(std::string(TUNEFARM_SHARED_DIR) + "/models/" + GetParam() + ".onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  BuildOptions options;
  options.target = codegen::HostTarget();
  auto plan = PlanModel(*g, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const ExecutionPlan& exec = plan->exec;
  for (size_t c = 0; c < exec.calls.size(); ++c) {
    const KernelCall& call = exec.calls[c];
    for (size_t i = 0; i < call.args.size(); ++i) {
      const PlanValue& a = exec.values[call.args[i]];
      const int64_t limit = a.space == ValueSpace::kArena ? exec.memory.arena_bytes : static_cast<int64_t>(exec.params.size());
      EXPECT_EQ(a.offset % 64, 0) << "call " << c << " (" << call.group << ") arg " << i << " '" << a.name << "'";
      EXPECT_GE(a.offset, 0);
      EXPECT_LE(a.offset + Bytes(a), limit) << "'" << a.name << "' outside its space";
      for (size_t j = i + 1; j < call.args.size(); ++j) {
        const PlanValue& b = exec.values[call.args[j]];
        if (a.space != b.space) continue;
        bool disjoint = a.offset + Bytes(a) <= b.offset || b.offset + Bytes(b) <= a.offset;
        EXPECT_TRUE(disjoint) << "call " << c << " (" << call.group << "): '" << a.name << "' and '" << b.name << "' overlap";
      }
    }
  }
  std::printf("[%s] %zu calls, %zu kernels; arena %lld bytes, peak live %lld, no reuse %lld (arena/peak %.3f)\n",
              GetParam().c_str(), exec.calls.size(), exec.tasks.size(), static_cast<long long>(exec.memory.arena_bytes),
              static_cast<long long>(exec.memory.peak_live_bytes), static_cast<long long>(exec.memory.naive_bytes),
              static_cast<double>(exec.memory.arena_bytes) / exec.memory.peak_live_bytes);
  EXPECT_LE(exec.memory.arena_bytes, 1.3 * exec.memory.peak_live_bytes);
}

INSTANTIATE_TEST_SUITE_P(SharedModels, MemoryPlanModelTest,
                         ::testing::Values("resnet18", "mobilenet_v2", "squeezenet1_1", "transformer_encoder"));

}  // namespace
}  // namespace tunefarm::build
