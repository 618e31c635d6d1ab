// A model artifact from real codegen run through the C API (libtunefarm_runtime): outputs against
// a C++ reference at 1 and 3 threads, and each way a plan or a caller can be wrong giving its
// error code and a message that names the culprit.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <thread>

#include "deploy/tunefarm_runtime.h"
#include "tests/deploy/model_artifact_builder.h"

namespace tunefarm::deploy::testing {
namespace {

using nlohmann::json;

float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = a.size() == b.size() ? 0 : INFINITY;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return std::isnan(worst) ? INFINITY : worst;
}

// The artifact with the valid plan, built once.
const std::string& ValidArtifact() {
  static const std::string* path = new std::string(WriteArtifact(GetTestModel(), GetTestModel().plan.dump()));
  return *path;
}

std::vector<float> Output(tunefarm_model* model, int index, size_t elements) {
  std::vector<float> out(elements, NAN);
  EXPECT_EQ(tunefarm_model_get_output(model, index, out.data(), out.size() * sizeof(float)), TUNEFARM_RT_OK)
      << tunefarm_last_error();
  return out;
}

TEST(ModelRuntime, DescribesInputsAndOutputs) {
  tunefarm_model* model = nullptr;
  ASSERT_EQ(tunefarm_model_load(ValidArtifact().c_str(), 1, &model), TUNEFARM_RT_OK) << tunefarm_last_error();
  EXPECT_EQ(tunefarm_model_num_inputs(model), 2);
  EXPECT_EQ(tunefarm_model_num_outputs(model), 2);
  tunefarm_tensor_info info;
  ASSERT_EQ(tunefarm_model_input_info(model, 0, &info), TUNEFARM_RT_OK);
  EXPECT_STREQ(info.name, "x");
  EXPECT_STREQ(info.dtype, "float32");
  ASSERT_EQ(info.ndim, 2);
  EXPECT_EQ(info.shape[0], 3);
  EXPECT_EQ(info.shape[1], 16);
  EXPECT_EQ(info.bytes, 192u);
  ASSERT_EQ(tunefarm_model_output_info(model, 1, &info), TUNEFARM_RT_OK);
  EXPECT_STREQ(info.name, "out_flat");
  ASSERT_EQ(info.ndim, 1);
  EXPECT_EQ(info.shape[0], 24);
  EXPECT_EQ(tunefarm_model_find_input(model, "y"), 1);
  EXPECT_EQ(tunefarm_model_find_input(model, "h"), -1);  // an intermediate is not an input
  EXPECT_EQ(tunefarm_model_input_info(model, 2, &info), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tunefarm_last_error()).find("index 2 is out of range"), std::string::npos);
  EXPECT_EQ(tunefarm_model_output_info(model, -1, &info), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tunefarm_model_input_info(model, 0, nullptr), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  tunefarm_model_free(model);
}

TEST(ModelRuntime, MatchesTheReferenceAtOneAndThreeThreads) {
  const TestModel& m = GetTestModel();
  for (int threads : {1, 3}) {
    SCOPED_TRACE(threads);
    tunefarm_model* model = nullptr;
    ASSERT_EQ(tunefarm_model_load(ValidArtifact().c_str(), threads, &model), TUNEFARM_RT_OK) << tunefarm_last_error();
    auto x = RandomFloats(m.kRows * m.kIn, 21 + threads);
    ASSERT_EQ(tunefarm_model_set_input(model, 0, x.data(), x.size() * sizeof(float)), TUNEFARM_RT_OK);
    for (uint32_t seed : {31u, 32u}) {  // x stays set while y changes
      auto y = RandomFloats(m.kRows * m.kOut, seed);
      ASSERT_EQ(tunefarm_model_set_input(model, tunefarm_model_find_input(model, "y"), y.data(),
                                         y.size() * sizeof(float)),
                TUNEFARM_RT_OK);
      ASSERT_EQ(tunefarm_model_run(model), TUNEFARM_RT_OK) << tunefarm_last_error();
      const std::vector<float> expected = m.Reference(x, y);
      EXPECT_LT(MaxAbsDiff(Output(model, 0, 24), expected), 1e-5f);
      EXPECT_LT(MaxAbsDiff(Output(model, 1, 24), expected), 1e-5f);  // the view reads the same bytes
      int positive = 0;
      for (float v : expected) positive += v > 0;
      EXPECT_GT(positive, 0);  // the relu does not zero everything: the check has teeth
      EXPECT_LT(positive, 24);
    }
    tunefarm_model_free(model);
  }
}

TEST(ModelRuntime, CallerErrors) {
  tunefarm_model* model = nullptr;
  ASSERT_EQ(tunefarm_model_load(ValidArtifact().c_str(), 1, &model), TUNEFARM_RT_OK) << tunefarm_last_error();
  std::vector<float> buffer(64);
  EXPECT_EQ(tunefarm_model_set_input(model, 0, buffer.data(), 100), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tunefarm_last_error()).find("input 0 (\"x\", float32 [3, 16]) takes 192 bytes, got 100"),
            std::string::npos)
      << tunefarm_last_error();
  EXPECT_EQ(tunefarm_model_set_input(model, 5, buffer.data(), 192), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tunefarm_model_set_input(model, 0, nullptr, 192), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tunefarm_model_get_output(model, 0, buffer.data(), 4), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tunefarm_last_error()).find("output 0 (\"out\""), std::string::npos);
  tunefarm_model_free(model);

  EXPECT_EQ(tunefarm_model_run(nullptr), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tunefarm_model_num_inputs(nullptr), -1);
  EXPECT_EQ(tunefarm_model_find_input(nullptr, "x"), -1);
  EXPECT_EQ(tunefarm_model_load(ValidArtifact().c_str(), 1, nullptr), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tunefarm_model_load(ValidArtifact().c_str(), -1, &model), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(model, nullptr);
  tunefarm_model_free(nullptr);  // a no-op
}

TEST(ModelRuntime, ProfiledRunTimesEveryCallAndComputesTheSame) {
  const TestModel& m = GetTestModel();
  json plan = m.plan;
  plan["calls"][0]["group"] = "fused_dense";
  plan["calls"][0]["ops"] = {"Gemm", "Relu"};
  const std::string path = WriteArtifact(m, plan.dump());
  tunefarm_model* model = nullptr;
  ASSERT_EQ(tunefarm_model_load(path.c_str(), 2, &model), TUNEFARM_RT_OK) << tunefarm_last_error();
  ASSERT_EQ(tunefarm_model_num_calls(model), 2);
  tunefarm_call_info info;
  ASSERT_EQ(tunefarm_model_call_info(model, 0, &info), TUNEFARM_RT_OK);
  EXPECT_EQ(std::string(info.kernel), plan["calls"][0]["kernel"].get<std::string>());
  EXPECT_STREQ(info.group, "fused_dense");
  EXPECT_STREQ(info.ops, "Gemm,Relu");
  ASSERT_EQ(tunefarm_model_call_info(model, 1, &info), TUNEFARM_RT_OK);
  EXPECT_EQ(std::string(info.kernel), plan["calls"][1]["kernel"].get<std::string>());
  EXPECT_STREQ(info.group, "");  // not in the plan
  EXPECT_STREQ(info.ops, "");

  auto x = RandomFloats(m.kRows * m.kIn, 5), y = RandomFloats(m.kRows * m.kOut, 6);
  ASSERT_EQ(tunefarm_model_set_input(model, 0, x.data(), x.size() * sizeof(float)), TUNEFARM_RT_OK);
  ASSERT_EQ(tunefarm_model_set_input(model, 1, y.data(), y.size() * sizeof(float)), TUNEFARM_RT_OK);
  double seconds[2] = {-1, -1};
  ASSERT_EQ(tunefarm_model_run_profiled(model, seconds, 2), TUNEFARM_RT_OK) << tunefarm_last_error();
  for (double s : seconds) {
    EXPECT_GE(s, 0.0);
    EXPECT_LT(s, 60.0);
  }
  EXPECT_LT(MaxAbsDiff(Output(model, 0, 24), m.Reference(x, y)), 1e-5f);

  EXPECT_EQ(tunefarm_model_run_profiled(model, seconds, 1), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tunefarm_last_error()).find("needs room for 2 call times, got 1"), std::string::npos)
      << tunefarm_last_error();
  EXPECT_EQ(tunefarm_model_run_profiled(model, nullptr, 2), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tunefarm_model_call_info(model, 2, &info), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tunefarm_model_call_info(model, 0, nullptr), TUNEFARM_RT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tunefarm_model_num_calls(nullptr), -1);
  tunefarm_model_free(model);
}

TEST(ModelRuntime, LastErrorIsPerThread) {
  tunefarm_model* model = nullptr;
  ASSERT_EQ(tunefarm_model_load("/nonexistent/model.so", 1, &model), TUNEFARM_RT_ERR_LOAD);
  EXPECT_NE(std::string(tunefarm_last_error()).find("/nonexistent/model.so: cannot open: No such file or directory"), std::string::npos)
      << tunefarm_last_error();
  std::string other;
  std::thread([&] { other = tunefarm_last_error(); }).join();
  EXPECT_EQ(other, "");
}

TEST(ModelRuntime, MissingPlanSymbol) {
  tunefarm_model* model = nullptr;
  const std::string path = WriteArtifact(GetTestModel(), std::nullopt);
  EXPECT_EQ(tunefarm_model_load(path.c_str(), 1, &model), TUNEFARM_RT_ERR_LOAD);
  EXPECT_NE(std::string(tunefarm_last_error()).find("missing symbol tunefarm_model_plan"), std::string::npos)
      << tunefarm_last_error();
  EXPECT_EQ(model, nullptr);
}

struct BadPlan {
  std::string name;
  std::function<std::string()> plan;  // the text to embed
  std::string message;
};

json Edited(const std::function<void(json&)>& edit) {
  json plan = GetTestModel().plan;
  edit(plan);
  return plan;
}

TEST(ModelRuntime, BadPlansAreRefusedAtLoad) {
  const BadPlan cases[] = {
      {"malformed JSON", [] { return GetTestModel().plan.dump().substr(0, 40); }, "the plan is not valid JSON"},
      {"value out of range", [] { return Edited([](json& p) { p["values"][5]["offset"] = 512; }).dump(); },
       "values[5] (\"out\"): bytes [512, 512 + 96) are outside the arena space (arena_bytes 576)"},
      {"overlapping args", [] { return Edited([](json& p) { p["values"][4]["offset"] = 128; }).dump(); },
       "calls[0] (kernel \"tf_k0\"): argument 3 (value 4 \"h\") overlaps argument 0 (value 0 \"x\")"},
      {"unknown kernel", [] { return Edited([](json& p) { p["calls"][1]["kernel"] = "tf_nope"; }).dump(); },
       "calls[1] (kernel \"tf_nope\"): the library has no kernel \"tf_nope\" (kernels: tf_k0, tf_k1)"},
      {"wrong shape", [] { return Edited([](json& p) { p["values"][4]["shape"] = {8, 3}; }).dump(); },
       "(value 4 \"h\") is float32 [8, 3], the kernel's argument"},
      {"params size", [] { return Edited([](json& p) { p["params_bytes"] = 640; }).dump(); },
       "tunefarm_model_params holds 576 bytes, the plan says params_bytes 640"},
  };
  for (const BadPlan& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = WriteArtifact(GetTestModel(), c.plan());
    tunefarm_model* model = nullptr;
    EXPECT_EQ(tunefarm_model_load(path.c_str(), 1, &model), TUNEFARM_RT_ERR_PLAN);
    const std::string error = tunefarm_last_error();
    EXPECT_NE(error.find(path + ": "), std::string::npos) << error;  // names the file
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
    EXPECT_EQ(model, nullptr);
  }
}

}  // namespace
}  // namespace tunefarm::deploy::testing
