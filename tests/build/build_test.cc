// The graph compiler end to end on small graphs: plan → artifact → deploy runtime (C API),
// checked against the node-by-node reference; kernel sharing; schedule sources; outputs that
// need a copy.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "common/strings.h"
#include "compiler/build/model_builder.h"
#include "compiler/codegen/host_target.h"
#include "compiler/schedule/default_rules.h"
#include "deploy/tunefarm_runtime.h"
#include "tests/build/graph_reference.h"

namespace tunefarm::build {
namespace {

using graph::Attrs;
using graph::Graph;
using graph::HostTensor;
using graph::NodeEntry;

HostTensor Random(std::vector<int64_t> shape, std::mt19937& rng, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> d(lo, hi);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return HostTensor::FromFloats(v, std::move(shape));
}

NodeEntry Node(Graph& g, const std::string& op, std::vector<NodeEntry> in, Attrs attrs = {}) {
  auto out = g.AddNode(op, g.UniqueName(op), std::move(in), std::move(attrs));
  EXPECT_TRUE(out.ok()) << out.status();
  return (*out)[0];
}

NodeEntry Param(Graph& g, const std::string& name, HostTensor t) { return *g.AddParam(name, std::move(t)); }

NodeEntry ConvBnRelu(Graph& g, NodeEntry x, int cin, int cout, std::mt19937& rng, const std::string& p,
                     std::optional<NodeEntry> residual = std::nullopt) {
  Attrs conv;
  conv.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  NodeEntry y = Node(g, "Conv", {x, Param(g, p + ".w", Random({cout, cin, 3, 3}, rng)), Param(g, p + ".b", Random({cout}, rng))}, conv);
  Attrs bn;
  bn.Set("epsilon", 1e-5);
  y = Node(g, "BatchNormalization",
           {y, Param(g, p + ".scale", Random({cout}, rng, 0.5, 1.5)), Param(g, p + ".shift", Random({cout}, rng)),
            Param(g, p + ".mean", Random({cout}, rng)), Param(g, p + ".var", Random({cout}, rng, 0.5, 2))},
           bn);
  if (residual) y = Node(g, "Add", {y, *residual});
  return Node(g, "Relu", {y});
}

// A small residual CNN with a classifier head, plus outputs that need copies: the input itself,
// and a reshape (a view) of an intermediate.
Graph ResidualNet(std::mt19937& rng) {
  Graph g;
  NodeEntry x = *g.AddInput("x", {te::DType::kFloat32, {1, 4, 9, 9}});
  NodeEntry a = ConvBnRelu(g, x, 4, 8, rng, "c1");
  NodeEntry b = ConvBnRelu(g, a, 8, 8, rng, "c2", a);
  NodeEntry pooled = Node(g, "GlobalAveragePool", {b});
  Attrs flat;
  flat.Set("axis", int64_t{1});
  NodeEntry f = Node(g, "Flatten", {pooled}, flat);
  Attrs gemm;
  gemm.Set("transB", int64_t{1});
  NodeEntry logits = Node(g, "Gemm", {f, Param(g, "fc.w", Random({5, 8}, rng)), Param(g, "fc.b", Random({5}, rng))}, gemm);
  g.AddOutput("y", Node(g, "Sigmoid", {logits}));
  Attrs reshape;
  reshape.Set("shape", std::vector<int64_t>{1, 8 * 81});
  g.AddOutput("features", Node(g, "Reshape", {b}, reshape));
  g.AddOutput("x_again", x);
  return g;
}

class Artifact {
 public:
  explicit Artifact(const std::string& bytes) {
    char tmpl[] = "/tmp/tunefarm_build_test_XXXXXX";
    int fd = mkstemp(tmpl);
    path_ = tmpl;
    EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    close(fd);
  }
  ~Artifact() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs the artifact on `inputs` (float32) through the C API.
std::vector<std::vector<float>> RunArtifact(const std::string& path, int threads, const std::vector<std::vector<float>>& inputs) {
  tunefarm_model* model = nullptr;
  EXPECT_EQ(tunefarm_model_load(path.c_str(), threads, &model), TUNEFARM_RT_OK) << tunefarm_last_error();
  if (model == nullptr) return {};
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(tunefarm_model_set_input(model, static_cast<int>(i), inputs[i].data(), inputs[i].size() * 4), TUNEFARM_RT_OK)
        << tunefarm_last_error();
  }
  EXPECT_EQ(tunefarm_model_run(model), TUNEFARM_RT_OK) << tunefarm_last_error();
  std::vector<std::vector<float>> outputs;
  for (int i = 0; i < tunefarm_model_num_outputs(model); ++i) {
    tunefarm_tensor_info info;
    EXPECT_EQ(tunefarm_model_output_info(model, i, &info), TUNEFARM_RT_OK);
    std::vector<float> out(info.bytes / 4);
    EXPECT_EQ(tunefarm_model_get_output(model, i, out.data(), info.bytes), TUNEFARM_RT_OK) << tunefarm_last_error();
    outputs.push_back(std::move(out));
  }
  tunefarm_model_free(model);
  return outputs;
}

BuildOptions Options(int threads) {
  BuildOptions options;
  options.target = codegen::HostTarget();
  options.threads = threads;
  return options;
}

TEST(BuildTest, ResidualNetMatchesTheNodeByNodeReference) {
  std::mt19937 rng(7);
  Graph g = ResidualNet(rng);
  std::vector<float> x(4 * 81);
  for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  std::vector<std::vector<double>> want = testing::EvaluateGraph(g, {std::vector<double>(x.begin(), x.end())});

  BuildOptions options = Options(3);
  auto plan = PlanModel(g, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->graph.OpCounts().count("BatchNormalization"), 0u) << plan->graph.Dump();
  auto bytes = BuildArtifact(&*plan, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  Artifact artifact(*bytes);
  for (int threads : {1, 3}) {
    std::vector<std::vector<float>> got = RunArtifact(artifact.path(), threads, {x});
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < got.size(); ++o) {
      ASSERT_EQ(got[o].size(), want[o].size()) << "output " << o;
      for (size_t i = 0; i < got[o].size(); ++i) {
        ASSERT_NEAR(got[o][i], want[o][i], 1e-4 + 1e-4 * std::fabs(want[o][i]))
            << "output " << g.output_names()[o] << " element " << i << " at " << threads << " threads";
      }
    }
  }
}

// Outputs that are an input, a view or a repeat get their own bytes through a copy kernel.
TEST(BuildTest, OutputsThatAliasOtherBytesAreCopied) {
  std::mt19937 rng(1);
  Graph g = ResidualNet(rng);
  auto plan = PlanModel(g, Options(1));
  ASSERT_TRUE(plan.ok()) << plan.status();
  int copies = 0;
  for (const KernelCall& c : plan->exec.calls) copies += c.ops == std::vector<std::string>{"Copy"};
  EXPECT_EQ(copies, 1);  // x_again; the reshape output is computed by its own kernel instead
  std::set<int> distinct(plan->exec.outputs.begin(), plan->exec.outputs.end());
  EXPECT_EQ(distinct.size(), plan->exec.outputs.size());
  for (int v : plan->exec.outputs) EXPECT_LT(plan->exec.values[v].alias_of, 0);
}

NodeEntry ConvRelu(Graph& g, NodeEntry x, int cin, int cout, int k, std::mt19937& rng, const std::string& p) {
  Attrs conv;
  const int64_t pad = k / 2;
  conv.Set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  return Node(g, "Relu", {Node(g, "Conv", {x, Param(g, p + ".w", Random({cout, cin, k, k}, rng)),
                                          Param(g, p + ".b", Random({cout}, rng))}, conv)});
}

// Two squeezenet fire modules: the first's concat is computed in place (its expand convs write
// straight into their ranges of it); the second's first part is also a graph output, so that
// concat stays a copy.
TEST(BuildTest, AConcatOfPartsOnlyItReadsIsComputedInPlace) {
  std::mt19937 rng(5);
  Graph g;
  NodeEntry x = *g.AddInput("x", {te::DType::kFloat32, {1, 8, 6, 6}});
  Attrs axis;
  axis.Set("axis", int64_t{1});
  NodeEntry s1 = ConvRelu(g, x, 8, 16, 1, rng, "s1");
  NodeEntry c1 = Node(g, "Concat", {ConvRelu(g, s1, 16, 16, 1, rng, "e1"), ConvRelu(g, s1, 16, 32, 3, rng, "e3")}, axis);
  NodeEntry s2 = ConvRelu(g, c1, 48, 16, 1, rng, "s2");
  NodeEntry shared = ConvRelu(g, s2, 16, 16, 1, rng, "f1");
  NodeEntry c2 = Node(g, "Concat", {shared, ConvRelu(g, s2, 16, 16, 3, rng, "f3")}, axis);
  g.AddOutput("y", ConvRelu(g, c2, 32, 8, 1, rng, "out"));
  g.AddOutput("shared", shared);
  std::vector<float> input(8 * 36);
  for (float& v : input) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  std::vector<std::vector<double>> want = testing::EvaluateGraph(g, {std::vector<double>(input.begin(), input.end())});

  for (bool nchwc : {true, false}) {
    BuildOptions options = Options(2);
    options.nchwc_layout = nchwc;
    auto plan = PlanModel(g, options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    int concat_calls = 0;
    for (const KernelCall& c : plan->exec.calls) concat_calls += std::count(c.ops.begin(), c.ops.end(), "Concat");
    EXPECT_EQ(concat_calls, 1) << "only the concat with a shared part copies (nchwc " << nchwc << ")";
    int parts = 0;
    for (const PlanValue& v : plan->exec.values) {
      if (v.alias_of < 0) continue;  // no views in this graph: only the parts of c1 alias
      const PlanValue& whole = plan->exec.values[v.alias_of];
      EXPECT_EQ(whole.type.NumElements(), 48 * 36) << v.name;
      EXPECT_EQ(v.offset, whole.offset + v.alias_offset) << v.name;
      EXPECT_EQ(v.alias_offset, parts == 0 ? 0 : 16 * 36 * 4) << v.name << " lies after the 16 channels of e1";
      ++parts;
    }
    EXPECT_EQ(parts, 2) << "e1 and e3 are parts of c1 (nchwc " << nchwc << ")";
    auto bytes = BuildArtifact(&*plan, options);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    Artifact artifact(*bytes);
    std::vector<std::vector<float>> got = RunArtifact(artifact.path(), 2, {input});
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < got.size(); ++o) {
      ASSERT_EQ(got[o].size(), want[o].size());
      for (size_t i = 0; i < got[o].size(); ++i)
        ASSERT_NEAR(got[o][i], want[o][i], 1e-4 + 1e-4 * std::fabs(want[o][i])) << g.output_names()[o] << "[" << i << "]";
    }
  }
}

// Where Winograd starts to pay depends on the machine (MinWinogradChannels): a 3x3 conv of 16
// channels runs as Winograd for Zen 4, directly for Zen 5, and a 64-channel one on both.
TEST(BuildTest, TheWinogradChannelThresholdIsTheTargets) {
  auto winograd_calls = [](int channels, const char* cpu) {
    std::mt19937 rng(3);
    Graph g;
    NodeEntry x = *g.AddInput("x", {te::DType::kFloat32, {1, channels, 16, 16}});
    g.AddOutput("y", ConvRelu(g, x, channels, channels, 3, rng, "c"));
    BuildOptions options = Options(2);
    options.target = *codegen::Target::Parse(StrCat("llvm -mtriple=x86_64-linux-gnu -mcpu=", cpu, " -mattr=+avx512f"));
    auto plan = PlanModel(g, options);
    EXPECT_TRUE(plan.ok()) << plan.status();
    int calls = 0;
    for (const KernelCall& c : plan->exec.calls) calls += std::count(c.ops.begin(), c.ops.end(), "WinogradBatchGemm");
    return calls;
  };
  EXPECT_EQ(MinWinogradChannels(*codegen::Target::Parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver4")), 16);
  EXPECT_EQ(winograd_calls(16, "znver4"), 1);
  EXPECT_EQ(winograd_calls(16, "znver5"), 0);
  EXPECT_EQ(winograd_calls(64, "znver5"), 1);
}

// Two blocks with equal shapes are one workload: one kernel, two calls.
TEST(BuildTest, EqualGroupsShareOneKernel) {
  std::mt19937 rng(3);
  Graph g;
  NodeEntry x = *g.AddInput("x", {te::DType::kFloat32, {1, 8, 6, 6}});
  NodeEntry a = ConvBnRelu(g, x, 8, 8, rng, "a");
  NodeEntry b = ConvBnRelu(g, a, 8, 8, rng, "b");
  g.AddOutput("y", b);
  BuildOptions options = Options(1);
  options.nchwc_layout = false;  // counts the convs' calls only (no layout conversions)
  auto plan = PlanModel(g, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->exec.calls.size(), 2u);
  EXPECT_EQ(plan->exec.tasks.size(), 1u);
  EXPECT_EQ(plan->exec.tasks[0].weight, 2);
}

// A tuned schedule from the source is used and recorded; one that does not replay on the DAG
// falls back to the default rules instead of failing the build.
TEST(BuildTest, ScheduleSourceIsConsultedAndStaleSchedulesFallBack) {
  std::mt19937 rng(5);
  Graph g;
  NodeEntry x = *g.AddInput("x", {te::DType::kFloat32, {1, 4, 6, 6}});
  g.AddOutput("y", ConvBnRelu(g, x, 4, 4, rng, "a"));
  BuildOptions options = Options(1);
  options.nchwc_layout = false;  // one task: the conv (no layout conversions)
  auto plan = PlanModel(g, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->exec.tasks.size(), 1u);
  const std::string key = plan->exec.tasks[0].dag->WorkloadKey();
  auto state = schedule::ApplyDefaultSchedule(plan->exec.tasks[0].dag, {8, 1});
  ASSERT_TRUE(state.ok());

  InMemoryScheduleSource source;
  source.Add(key, options.target.ToString(), 1, {state->ToJson(), "db:record-1"});
  options.schedules = &source;
  ASSERT_TRUE(BuildArtifact(&*plan, options).ok());
  EXPECT_EQ(plan->exec.tasks[0].schedule, "db:record-1");

  InMemoryScheduleSource stale;
  stale.Add(key, options.target.ToString(), 1, {R"({"format":1,"steps":[{"SP":[99,0,[4]]}]})", "db:stale"});
  options.schedules = &stale;
  auto bytes = BuildArtifact(&*plan, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(plan->exec.tasks[0].schedule, "default");

  // A broken best record (e.g. a fake imported one) is skipped for the next that replays.
  stale.Add(key, options.target.ToString(), 1, {"not json", "db:junk"});
  stale.Add(key, options.target.ToString(), 1, {state->ToJson(), "db:record-2"});
  bytes = BuildArtifact(&*plan, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(plan->exec.tasks[0].schedule, "db:record-2");
}

}  // namespace
}  // namespace tunefarm::build

namespace tunefarm::build {
namespace {

// A tuned schedule that rewrites the conv weights' layout: the compiler transforms each call's
// weights once at build time (two calls of one kernel, two weight tensors), the kernels read
// the rewritten tensors, the original weights leave the blob, and the outputs are unchanged.
TEST(BuildTest, RewrittenWeightLayoutsAreComputedAtBuildTime) {
  std::mt19937 rng(11);
  Graph g;
  NodeEntry x = *g.AddInput("x", {te::DType::kFloat32, {1, 8, 6, 6}});
  NodeEntry a = ConvBnRelu(g, x, 8, 8, rng, "a");
  g.AddOutput("y", ConvBnRelu(g, a, 8, 8, rng, "b"));
  std::vector<float> input(8 * 36);
  for (float& v : input) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  std::vector<std::vector<double>> want = testing::EvaluateGraph(g, {std::vector<double>(input.begin(), input.end())});

  BuildOptions options = Options(2);
  options.nchwc_layout = false;
  auto plan = PlanModel(g, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->exec.tasks.size(), 1u);
  const auto& dag = plan->exec.tasks[0].dag;
  int weights = -1;  // the 4-d constant, read by the conv
  for (int id : dag->inputs())
    if (dag->tensor(id).is_constant && dag->tensor(id).shape.size() == 4) weights = id;
  ASSERT_GE(weights, 0);
  ASSERT_EQ(dag->consumers(weights).size(), 1u);
  const int conv = dag->consumers(weights)[0];
  schedule::State s(dag);
  ASSERT_TRUE(s.Split(conv, 1, {4}).ok());                       // n k.0 k.1 oh ow rc ry rx
  ASSERT_TRUE(s.Reorder(conv, {0, 1, 3, 4, 5, 6, 7, 2}).ok());  // ... rx k.1
  ASSERT_TRUE(s.LayoutRewrite(weights, conv + 0).ok()) << s.ToString();
  EXPECT_EQ(s.dag().tensor(weights + 1).shape, (std::vector<int64_t>{2, 8, 3, 3, 4}));  // OIHW -> O/4 I H W 4o

  InMemoryScheduleSource source;
  source.Add(dag->WorkloadKey(), options.target.ToString(), 2, {s.ToJson(), "db:layout"});
  options.schedules = &source;
  const size_t params_before = plan->exec.params.size();
  auto bytes = BuildArtifact(&*plan, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(plan->exec.tasks[0].schedule, "db:layout");
  int rewritten = 0;
  for (const PlanValue& v : plan->exec.values) rewritten += v.name.size() > 7 && v.name.substr(v.name.size() - 7) == ".layout";
  EXPECT_EQ(rewritten, 2);
  EXPECT_LE(plan->exec.params.size(), params_before + 2 * 64);  // the originals left the blob
  Artifact artifact(*bytes);
  std::vector<std::vector<float>> got = RunArtifact(artifact.path(), 2, {input});
  ASSERT_EQ(got.size(), 1u);
  for (size_t i = 0; i < got[0].size(); ++i) ASSERT_NEAR(got[0][i], want[0][i], 1e-4 + 1e-4 * std::fabs(want[0][i])) << i;
}

}  // namespace
}  // namespace tunefarm::build
