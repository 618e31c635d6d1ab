#include "tests/deploy/model_artifact_builder.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/host_target.h"
#include "compiler/ops/binary.h"
#include "compiler/ops/matmul.h"
#include "compiler/ops/op_common.h"
#include "compiler/ops/unary.h"
#include "compiler/schedule/default_rules.h"
#include "deploy/artifact_checksum.h"
#include "compiler/tir/lower.h"

namespace tunefarm::deploy::testing {
namespace {

using nlohmann::json;
using te::DagBuilder;
using te::DType;

tir::PrimFunc Lowered(const std::shared_ptr<const te::ComputeDag>& dag, const char* name) {
  auto state = schedule::ApplyDefaultSchedule(dag, {8, 3});
  EXPECT_TRUE(state.ok()) << state.status();
  auto func = tir::Lower(*state, name);
  EXPECT_TRUE(func.ok()) << func.status();
  return *func;
}

tir::PrimFunc DenseKernel() {
  DagBuilder b;
  auto x = b.Placeholder("x", DType::kFloat32, {TestModel::kRows, TestModel::kIn});
  auto w = b.Placeholder("W", DType::kFloat32, {TestModel::kOut, TestModel::kIn}, /*is_constant=*/true);
  auto bias = b.Placeholder("bias", DType::kFloat32, {TestModel::kOut}, /*is_constant=*/true);
  return Lowered(b.Build({ops::OrDie(ops::Dense(b, x, w, bias))}), "tf_k0");
}

tir::PrimFunc AddReluKernel() {
  DagBuilder b;
  auto h = b.Placeholder("h", DType::kFloat32, {TestModel::kRows, TestModel::kOut});
  auto y = b.Placeholder("y", DType::kFloat32, {TestModel::kRows, TestModel::kOut});
  auto sum = ops::OrDie(ops::Binary(b, h, y, ops::BinaryOp::kAdd));
  return Lowered(b.Build({ops::OrDie(ops::Unary(b, sum, ops::UnaryParams{ops::UnaryOp::kRelu, {}, {}}))}), "tf_k1");
}

json Value(const std::string& name, std::vector<int64_t> shape, const char* space, int64_t offset) {
  return {{"name", name}, {"dtype", "float32"}, {"shape", shape}, {"space", space}, {"offset", offset}};
}

// The call's args from the kernel's ABI order: inputs by placeholder name, the output by role.
json Call(const tir::PrimFunc& f, const std::map<std::string, int>& ids, int output) {
  json args = json::array();
  int num_inputs = 0;
  for (int a = 0; a < f.num_args; ++a) {
    const tir::Buffer& buffer = f.buffers[a];
    if (buffer.role == tir::ArgRole::kOutput) {
      args.push_back(output);
      continue;
    }
    ++num_inputs;
    auto it = ids.find(buffer.name);
    EXPECT_NE(it, ids.end()) << f.name << " argument " << buffer.name;
    args.push_back(it == ids.end() ? -1 : it->second);
  }
  return {{"kernel", f.name}, {"args", args}, {"num_inputs", num_inputs}, {"schedule", "default"}};
}

TestModel Build() {
  TestModel m;
  m.kernels = {DenseKernel(), AddReluKernel()};
  m.weight = RandomFloats(TestModel::kOut * TestModel::kIn, 11);
  m.bias = RandomFloats(TestModel::kOut, 12);
  m.params.assign(576, '\0');
  std::memcpy(m.params.data(), m.weight.data(), m.weight.size() * sizeof(float));
  std::memcpy(m.params.data() + 512, m.bias.data(), m.bias.size() * sizeof(float));
  // Values: 0 x, 1 y, 2 W, 3 bias, 4 h, 5 out, 6 out_flat. Arena offsets are 64-byte aligned.
  m.plan = {{"format", 1},
            {"target", codegen::HostTarget().ToString()},
            {"threads", 2},
            {"arena_bytes", 576},
            {"params_bytes", 576},
            {"values",
             {Value("x", {3, 16}, "arena", 0), Value("y", {3, 8}, "arena", 192), Value("W", {8, 16}, "param", 0),
              Value("bias", {8}, "param", 512), Value("h", {3, 8}, "arena", 320), Value("out", {3, 8}, "arena", 448),
              Value("out_flat", {24}, "arena", 448)}},
            {"inputs", {0, 1}},
            {"outputs", {5, 6}},
            {"calls",
             {Call(m.kernels[0], {{"x", 0}, {"W", 2}, {"bias", 3}}, 4),
              Call(m.kernels[1], {{"h", 4}, {"y", 1}}, 5)}}};
  return m;
}

}  // namespace

std::vector<float> TestModel::Reference(const std::vector<float>& x, const std::vector<float>& y) const {
  std::vector<float> out(kRows * kOut);
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t o = 0; o < kOut; ++o) {
      float h = bias[o];
      for (int64_t i = 0; i < kIn; ++i) h += x[r * kIn + i] * weight[o * kIn + i];
      const float v = h + y[r * kOut + o];
      out[r * kOut + o] = v > 0 ? v : 0;
    }
  }
  return out;
}

const TestModel& GetTestModel() {
  static const TestModel* model = new TestModel(Build());
  return *model;
}

std::string WriteArtifact(const TestModel& model, const std::optional<std::string>& plan_text) {
  std::vector<codegen::EmbeddedBlob> blobs = {{"tunefarm_model_params", model.params, 64, ".tunefarm.params"}};
  if (plan_text) blobs.push_back({"tunefarm_model_plan", *plan_text, 64, ".rodata"});
  auto so = codegen::BuildSharedObject(model.kernels, codegen::HostTarget(), blobs);
  EXPECT_TRUE(so.ok()) << so.status();
  return so.ok() ? WriteTempFile(deploy::AppendArtifactTrailer(*so), ".so") : "";
}

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

CommandResult RunCommand(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) result.output.append(buf, n);
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace tunefarm::deploy::testing
