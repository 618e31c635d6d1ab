// The model plan (docs/model-artifact.md): parsing, the checks it gets on its own and against
// kernel metadata, each failure naming the value or call; then ModelExecutor on hand-written C
// model artifacts (tests/deploy/kernels/c_model.c).
#include "deploy/model_plan.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "deploy/model_executor.h"
#include "tests/deploy/sealed_artifact.h"

namespace tunefarm::deploy {
namespace {

using nlohmann::json;

// x [2,8] (arena 0) -> k_mul(x, w) -> h (arena 64) -> k_relu(h) -> y (arena 128); w is a param.
json ValidPlan() {
  return json::parse(R"({
    "format": 1, "target": "llvm -mtriple=x86_64-linux-gnu", "threads": 2,
    "arena_bytes": 192, "params_bytes": 64,
    "values": [
      {"name": "x", "dtype": "float32", "shape": [2, 8], "space": "arena", "offset": 0},
      {"name": "w", "dtype": "float32", "shape": [8], "space": "param", "offset": 0},
      {"name": "h", "dtype": "float32", "shape": [2, 8], "space": "arena", "offset": 64},
      {"name": "y", "dtype": "float32", "shape": [2, 8], "space": "arena", "offset": 128},
      {"name": "y_flat", "dtype": "float32", "shape": [16], "space": "arena", "offset": 128}
    ],
    "inputs": [0], "outputs": [3, 4],
    "calls": [
      {"kernel": "k_mul", "args": [0, 1, 2], "num_inputs": 2, "group": "mul", "ops": ["Mul"],
       "workload": "tfdag1-abc", "schedule": "default"},
      {"kernel": "k_relu", "args": [2, 3], "num_inputs": 1}
    ]})");
}

KernelMetadata Metadata() {
  auto parsed = ParseKernelMetadata(R"({"format": 1, "target": "t", "entries": [
    {"name": "k_mul", "workspace_bytes": 0, "args": [
      {"name": "a", "dtype": "float32", "shape": [2, 8], "role": "in"},
      {"name": "b", "dtype": "float32", "shape": [8], "role": "param"},
      {"name": "c", "dtype": "float32", "shape": [2, 8], "role": "out"}]},
    {"name": "k_relu", "workspace_bytes": 128, "args": [
      {"name": "a", "dtype": "float32", "shape": [2, 8], "role": "in"},
      {"name": "c", "dtype": "float32", "shape": [2, 8], "role": "out"}]}]})");
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? parsed.value() : KernelMetadata();
}

TEST(ModelPlan, ParsesEveryField) {
  Result<ModelPlan> plan = ParseModelPlan(ValidPlan().dump());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->format, 1);
  EXPECT_EQ(plan->threads, 2);
  EXPECT_EQ(plan->arena_bytes, 192u);
  EXPECT_EQ(plan->params_bytes, 64u);
  ASSERT_EQ(plan->values.size(), 5u);
  EXPECT_EQ(plan->values[1].space, ValueSpace::kParam);
  EXPECT_EQ(plan->values[2].offset, 64u);
  EXPECT_EQ(plan->values[2].bytes, 64u);
  EXPECT_EQ(plan->values[4].shape, std::vector<int64_t>{16});
  EXPECT_EQ(plan->inputs, std::vector<int32_t>{0});
  EXPECT_EQ(plan->outputs, (std::vector<int32_t>{3, 4}));
  ASSERT_EQ(plan->calls.size(), 2u);
  EXPECT_EQ(plan->calls[0].kernel, "k_mul");
  EXPECT_EQ(plan->calls[0].args, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(plan->calls[0].num_inputs, 2);
  EXPECT_EQ(plan->calls[0].ops, std::vector<std::string>{"Mul"});
  EXPECT_EQ(plan->calls[0].workload, "tfdag1-abc");
  EXPECT_TRUE(CheckPlanAgainstKernels(*plan, Metadata()).ok());
}

struct BadPlan {
  std::string name;
  std::function<void(json&)> edit;
  std::string message;  // a part of the error
};

TEST(ModelPlan, RefusesBadPlansNamingTheCulprit) {
  const BadPlan cases[] = {
      {"format", [](json& p) { p["format"] = 2; }, "format: this runtime reads plan format 1, got 2"},
      {"no values", [](json& p) { p.erase("values"); }, "missing field \"values\""},
      {"threads", [](json& p) { p["threads"] = 0; }, "threads: expected a positive thread count, got 0"},
      {"dtype", [](json& p) { p["values"][2]["dtype"] = "float8"; },
       "values[2] (\"h\").dtype: unknown dtype \"float8\""},
      {"negative extent", [](json& p) { p["values"][0]["shape"][1] = -8; },
       "values[0] (\"x\").shape[1]: expected a non-negative integer, got -8"},
      {"space", [](json& p) { p["values"][1]["space"] = "rom"; }, "expected \"arena\" or \"param\", got \"rom\""},
      {"arena overflow", [](json& p) { p["values"][3]["offset"] = 192; },
       "values[3] (\"y\"): bytes [192, 192 + 64) are outside the arena space (arena_bytes 192)"},
      {"param overflow", [](json& p) { p["params_bytes"] = 16; },
       "values[1] (\"w\"): bytes [0, 0 + 32) are outside the param space (params_bytes 16)"},
      {"size overflow", [](json& p) { p["values"][0]["shape"] = {1LL << 40, 1LL << 40}; }, "overflows int64"},
      {"input id", [](json& p) { p["inputs"][0] = 9; },
       "inputs[0]: value id 9 is out of range (the plan has 5 values)"},
      {"param input", [](json& p) { p["inputs"][0] = 1; }, "inputs[0]: value 1 \"w\" is a param"},
      {"call arg id", [](json& p) { p["calls"][1]["args"][0] = -1; },
       "calls[1] (kernel \"k_relu\").args[0]: value id -1 is out of range"},
      {"num_inputs", [](json& p) { p["calls"][1]["num_inputs"] = 3; }, "3 inputs but only 2 arguments"},
      {"kernel name", [](json& p) { p["calls"][0]["kernel"] = "k mul"; }, "\"k mul\" is not a C identifier"},
      {"misaligned", [](json& p) { p["values"][2]["offset"] = 96; p["arena_bytes"] = 256; },
       "calls[0] (kernel \"k_mul\"): argument 2 (value 2 \"h\") is at offset 96, not a multiple of 64"},
      {"overlap", [](json& p) { p["values"][2]["offset"] = 0; },
       "calls[0] (kernel \"k_mul\"): argument 2 (value 2 \"h\") overlaps argument 0 (value 0 \"x\")"},
      {"output in params", [](json& p) { p["calls"][0]["args"] = {0, 2, 1}; },
       "argument 2 (value 1 \"w\") is an output in the read-only param space"},
  };
  for (const BadPlan& c : cases) {
    json plan = ValidPlan();
    c.edit(plan);
    Result<ModelPlan> parsed = ParseModelPlan(plan.dump());
    ASSERT_FALSE(parsed.ok()) << c.name;
    EXPECT_EQ(parsed.status().code(), StatusCode::kBadPlan) << c.name;
    EXPECT_NE(parsed.status().message().find(c.message), std::string::npos)
        << c.name << ": " << parsed.status().message();
  }
}

TEST(ModelPlan, MalformedJsonIsABadPlan) {
  Result<ModelPlan> parsed = ParseModelPlan("{\"format\": 1, \"values\": [");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kBadPlan);
  EXPECT_NE(parsed.status().message().find("not valid JSON"), std::string::npos) << parsed.status().message();
}

TEST(ModelPlan, DisjointViewsOfOneValueAcrossCallsAreFine) {
  // y_flat aliases y, but never within one call.
  json plan = ValidPlan();
  plan["calls"].push_back({{"kernel", "k_relu"}, {"args", {2, 0}}, {"num_inputs", 1}});
  EXPECT_TRUE(ParseModelPlan(plan.dump()).ok());
}

TEST(ModelPlan, MustFitTheKernels) {
  const BadPlan cases[] = {
      {"unknown kernel", [](json& p) { p["calls"][1]["kernel"] = "k_nope"; },
       "calls[1] (kernel \"k_nope\"): the library has no kernel \"k_nope\" (kernels: k_mul, k_relu)"},
      {"arg count", [](json& p) { p["calls"][1]["args"] = {0, 2, 3}; p["calls"][1]["num_inputs"] = 2; },
       "passes 3 arguments, the kernel takes 2"},
      {"num_inputs", [](json& p) { p["calls"][1]["num_inputs"] = 0; },
       "calls[1] (kernel \"k_relu\"): num_inputs is 0, the kernel has 1 inputs"},
      {"shape", [](json& p) { p["values"][2]["shape"] = {4, 4}; },
       "calls[0] (kernel \"k_mul\"): argument 2 (value 2 \"h\") is float32 [4, 4], the kernel's argument \"c\" is "
       "float32 [2, 8]"},
      {"dtype", [](json& p) { p["values"][1]["dtype"] = "int32"; },
       "argument 1 (value 1 \"w\") is int32 [8], the kernel's argument \"b\" is float32 [8]"},
  };
  for (const BadPlan& c : cases) {
    json plan = ValidPlan();
    c.edit(plan);
    Result<ModelPlan> parsed = ParseModelPlan(plan.dump());
    ASSERT_TRUE(parsed.ok()) << c.name << ": " << parsed.status().ToString();
    Status status = CheckPlanAgainstKernels(*parsed, Metadata());
    EXPECT_EQ(status.code(), StatusCode::kBadPlan) << c.name;
    EXPECT_NE(status.message().find(c.message), std::string::npos) << c.name << ": " << status.message();
  }
}

// --- ModelExecutor on the C model artifacts ---

TEST(ModelExecutor, RunsAHandWrittenArtifact) {
  for (int32_t threads : {1, 3, 0}) {
    auto model = ModelExecutor::Load(testing::Sealed(DEPLOY_KERNEL_C_MODEL), threads);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    EXPECT_EQ((*model)->num_threads(), threads == 0 ? 2 : threads);  // 0: the plan's "threads"
    const float x[4] = {1, 2, 3, 4};
    ASSERT_TRUE((*model)->SetInput(0, x, sizeof(x)).ok());
    for (int run = 0; run < 2; ++run) {  // the input stays set
      float y[4] = {};
      ASSERT_TRUE((*model)->Run().ok());
      ASSERT_TRUE((*model)->GetOutput(0, y, sizeof(y)).ok());
      EXPECT_EQ(y[0], 3.0f);
      EXPECT_EQ(y[1], -1.0f);
      EXPECT_EQ(y[2], 2.5f);
      EXPECT_EQ(y[3], 41.0f);
    }
  }
}

TEST(ModelExecutor, WrongByteCountsAndIndices) {
  auto model = ModelExecutor::Load(testing::Sealed(DEPLOY_KERNEL_C_MODEL), 1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  float buffer[5] = {};
  Status s = (*model)->SetInput(0, buffer, 12);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("input 0 (\"x\", float32 [4]) takes 16 bytes, got 12"), std::string::npos) << s.message();
  EXPECT_EQ((*model)->SetInput(1, buffer, 16).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*model)->SetInput(0, nullptr, 16).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*model)->GetOutput(0, buffer, 20).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*model)->GetOutput(1, buffer, 16).code(), StatusCode::kInvalidArgument);
}

TEST(ModelExecutor, KernelErrorNamesTheCall) {
  auto model = ModelExecutor::Load(testing::Sealed(DEPLOY_KERNEL_C_MODEL_FAIL), 1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const float x[4] = {1, 1, 1, 1};
  ASSERT_TRUE((*model)->SetInput(0, x, sizeof(x)).ok());
  Status s = (*model)->Run();
  EXPECT_EQ(s.code(), StatusCode::kKernelError);
  EXPECT_EQ(s.kernel_code(), 7);
  EXPECT_NE(s.message().find("calls[1] (kernel \"fail7\") returned error 7"), std::string::npos) << s.message();
  float y[4] = {};
  ASSERT_TRUE((*model)->GetOutput(0, y, sizeof(y)).ok());
  EXPECT_EQ(y[3], 11.0f);  // the call before the failing one ran
}

// The diagnostic API of call_context_bench: the calls run one at a time give Run's output, each
// call's arguments are named with their sizes, and a bad index or failing kernel is named.
TEST(ModelExecutor, CallsRunOneAtATimeAndNameTheirArguments) {
  auto model = ModelExecutor::Load(testing::Sealed(DEPLOY_KERNEL_C_MODEL), 1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const float x[4] = {1, 2, 3, 4};
  ASSERT_TRUE((*model)->SetInput(0, x, sizeof(x)).ok());
  const size_t calls = (*model)->plan().calls.size();
  ASSERT_GT(calls, 0u);
  for (size_t c = 0; c < calls; ++c) {
    ASSERT_TRUE((*model)->RunCall(c).ok());
    auto args = (*model)->CallArgBytes(c);
    ASSERT_EQ(args.size(), (*model)->plan().calls[c].args.size());
    for (const auto& a : args) {
      EXPECT_NE(a.data, nullptr);
      EXPECT_GT(a.bytes, 0u);
    }
  }
  float y[4] = {};
  ASSERT_TRUE((*model)->GetOutput(0, y, sizeof(y)).ok());
  EXPECT_EQ(y[0], 3.0f);
  EXPECT_EQ(y[3], 41.0f);
  Status s = (*model)->RunCall(calls);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("no call " + std::to_string(calls)), std::string::npos) << s.message();
  EXPECT_TRUE((*model)->CallArgBytes(calls).empty());

  auto failing = ModelExecutor::Load(testing::Sealed(DEPLOY_KERNEL_C_MODEL_FAIL), 1);
  ASSERT_TRUE(failing.ok()) << failing.status().ToString();
  ASSERT_TRUE((*failing)->SetInput(0, x, sizeof(x)).ok());
  Status f = (*failing)->RunCall(1);
  EXPECT_EQ(f.code(), StatusCode::kKernelError);
  EXPECT_NE(f.message().find("calls[1] (kernel \"fail7\") returned error 7"), std::string::npos) << f.message();
}

TEST(ModelExecutor, LoadErrors) {
  auto no_plan = ModelExecutor::Load(testing::Sealed(DEPLOY_KERNEL_C_MODEL_NO_PLAN), 1);
  ASSERT_FALSE(no_plan.ok());
  EXPECT_EQ(no_plan.status().code(), StatusCode::kLoadFailed);
  EXPECT_NE(no_plan.status().message().find("missing symbol tunefarm_model_plan"), std::string::npos)
      << no_plan.status().message();
  auto missing = ModelExecutor::Load("/nonexistent/model.so", 1);
  EXPECT_EQ(missing.status().code(), StatusCode::kLoadFailed);
  auto negative = ModelExecutor::Load(testing::Sealed(DEPLOY_KERNEL_C_MODEL), -2);
  EXPECT_EQ(negative.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tunefarm::deploy
