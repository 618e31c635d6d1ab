// Default schedules (compiler/schedule/default_rules.h) on every kind of DAG: correct through
// the interpreter and a .so at 1 and 3 threads, and shaped as the rules promise.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/schedule/default_rules.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/common/dag_evaluator.h"
#include "tests/common/test_dags.h"
#include "tests/property/property_cases.h"

namespace tunefarm::testing {
namespace {

using schedule::ApplyDefaultSchedule;
using schedule::ComputeLocation;
using schedule::IterAnnotation;
using schedule::RuleContext;

// Runs the default schedule of `dag` through the interpreter and a .so; returns the max error
// against the plain evaluation.
double DefaultScheduleError(std::shared_ptr<const te::ComputeDag> dag, schedule::State* out = nullptr) {
  auto state = ApplyDefaultSchedule(dag, RuleContext{8, 2});
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return 1e30;
  if (out) *out = *state;
  auto f = tir::Lower(*state, "kernel");
  EXPECT_TRUE(f.ok()) << f.status() << "\n" << state->ToString();
  if (!f.ok()) return 1e30;
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<double>> inputs64;
  for (size_t i = 0; i < dag->inputs().size(); ++i) {
    inputs.push_back(RandomFloats(dag->tensor(dag->inputs()[i]).NumElements(), 40 + i));
    inputs64.emplace_back(inputs.back().begin(), inputs.back().end());
  }
  auto ref = DagEvaluator(*dag).Run(inputs64);
  double worst = 0;
  auto runner = codegen::testing::KernelRunner::Create({*f}, codegen::testing::Backend::kSharedObject);
  for (int path = 0; path < 3; ++path) {  // interpreter, .so at 1 thread, .so at 3 threads
    std::vector<codegen::testing::Array<float>> arrays;
    for (auto& v : inputs) {
      arrays.emplace_back(v.size());
      std::copy(v.begin(), v.end(), arrays.back().data());
    }
    for (int id : dag->outputs()) {
      arrays.emplace_back(dag->tensor(id).NumElements());
      std::fill(arrays.back().data(), arrays.back().data() + arrays.back().size, NAN);
    }
    std::vector<void*> args;
    for (auto& a : arrays) args.push_back(a.data());
    if (path == 0) {
      EXPECT_TRUE(tir::Interpret(*f, args).ok());
    } else {
      EXPECT_EQ(runner->Run("kernel", args, path == 1 ? 1 : 3), 0);
    }
    for (size_t o = 0; o < dag->outputs().size(); ++o) {
      auto& got = arrays[inputs.size() + o];
      for (size_t i = 0; i < got.size; ++i) {
        double err = std::fabs(got.data()[i] - ref[o][i]) / (1 + std::fabs(ref[o][i]));
        worst = std::max(worst, std::isnan(err) ? 1e30 : err);
      }
    }
  }
  return worst;
}

TEST(DefaultRules, EveryPropertyDagIsCorrect) {
  std::mt19937_64 rng(5);
  for (const PropertyCase& c : PropertyCases()) {
    for (int trial = 0; trial < 3; ++trial) {
      auto dag = c.make(rng);
      schedule::State s(dag);
      EXPECT_LT(DefaultScheduleError(dag, &s), 1e-4) << c.name << "\n" << s.ToString();
    }
  }
}

TEST(DefaultRules, ConvBiasReluIsTiledWithItsEpilogue) {
  std::mt19937_64 rng(1);
  auto dag = PropertyCases()[1].make(rng);  // conv2d + bias + relu
  std::vector<std::string> applied;
  auto s = ApplyDefaultSchedule(dag, RuleContext{8, 2}, &applied);
  ASSERT_TRUE(s.ok()) << s.status();
  // 0 x, 1 w, 2 bias, 3 pad (if padded), conv, bias_add, relu
  int out = dag->outputs()[0];
  int conv = out - 2;
  EXPECT_EQ(s->stage(out - 1).location, ComputeLocation::kInlined);  // bias add
  EXPECT_EQ(s->stage(conv).location, ComputeLocation::kAt);
  EXPECT_EQ(s->stage(conv).attach_stage, out);
  const auto& conv_iters = s->stage(conv).iters;
  EXPECT_EQ(conv_iters.back().annotation, IterAnnotation::kVectorize);
  std::string joined;
  for (const auto& a : applied) joined += a + "\n";
  EXPECT_NE(joined.find("tile+epilogue"), std::string::npos) << joined;
}

TEST(DefaultRules, LargeGemmAndChainAreCorrect) {
  EXPECT_LT(DefaultScheduleError(GemmBiasDag(67, 45, 33)), 1e-4);
  EXPECT_LT(DefaultScheduleError(GemmBiasDag(1, 1000, 64)), 1e-4);  // the dense layer shape
  EXPECT_LT(DefaultScheduleError(ElementwiseChainDag(31, 17)), 1e-5);
}

TEST(DefaultRules, RulesAreAnOrderedTable) {
  std::vector<std::string_view> names;
  for (const auto& r : schedule::DefaultRules()) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"inline", "tile+epilogue", "tile", "reduction", "elementwise"}));
}

}  // namespace
}  // namespace tunefarm::testing
