// Edge values through plan → artifact → C API (found by the compiled conformance executor):
// zero-sized tensors, a model whose outputs are all empty, scalars, int64/bool outputs, an
// output that is an input, the same value output twice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "compiler/build/model_builder.h"
#include "tests/build/compile_and_run.h"

namespace tunefarm::build {
namespace {

using graph::Attrs;
using graph::Graph;
using graph::NodeEntry;
using te::DType;

NodeEntry Op(Graph& g, const std::string& op, std::vector<NodeEntry> in, Attrs attrs = {}) {
  auto out = g.AddNode(op, g.UniqueName(op), std::move(in), std::move(attrs));
  EXPECT_TRUE(out.ok()) << out.status();
  return (*out)[0];
}

template <typename T>
std::string Bytes(std::vector<T> v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// A kernel over an empty tensor has nothing to do: no call, no bytes. When every output is
// empty the artifact still holds one (never called) kernel, as a kernel library must.
TEST(EdgeValuesTest, EmptyOutputsCostNoKernel) {
  Graph g;
  NodeEntry x = *g.AddInput("x", {DType::kFloat32, {0, 3}});
  g.AddOutput("y", Op(g, "Relu", {x}));
  g.AddOutput("x_again", x);
  auto plan = PlanModel(g, HostOptions(1));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->exec.calls.empty());
  ASSERT_EQ(plan->exec.tasks.size(), 1u);
  EXPECT_EQ(plan->exec.tasks[0].weight, 0);
  std::vector<std::string> outs = CompileAndRun(g, {""});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_TRUE(outs[0].empty());
  EXPECT_TRUE(outs[1].empty());
}

// An empty input feeding a non-empty output needs the op's empty-input rule: a clear
// Unimplemented, not an op library error.
TEST(EdgeValuesTest, EmptyInputToNonEmptyOutputIsUnimplemented) {
  Graph g;
  NodeEntry x = *g.AddInput("x", {DType::kFloat32, {0, 3}});
  NodeEntry z = *g.AddInput("z", {DType::kFloat32, {2, 3}});
  Attrs axis;
  axis.Set("axis", int64_t{0});
  g.AddOutput("y", Op(g, "Concat", {x, z}, axis));
  auto plan = PlanModel(g, HostOptions(1));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnimplemented) << plan.status();
  EXPECT_NE(plan.status().message().find("zero-sized"), std::string::npos) << plan.status();
}

// A scalar int64 computed and output twice, the scalar input itself as an output, and a bool
// output of a comparison.
TEST(EdgeValuesTest, ScalarsIntsBoolsAndAliasedOutputs) {
  Graph g;
  NodeEntry s = *g.AddInput("s", {DType::kInt64, {}});
  NodeEntry a = *g.AddInput("a", {DType::kFloat32, {3}});
  NodeEntry b = *g.AddInput("b", {DType::kFloat32, {3}});
  NodeEntry neg = Op(g, "Neg", {s});
  g.AddOutput("neg", neg);
  g.AddOutput("neg_again", neg);
  g.AddOutput("s_again", s);
  g.AddOutput("greater", Op(g, "Greater", {a, b}));
  std::vector<std::string> outs =
      CompileAndRun(g, {Bytes<int64_t>({7}), Bytes<float>({1, 2, 3}), Bytes<float>({3, 2, 1})});
  ASSERT_EQ(outs.size(), 4u);
  EXPECT_EQ(outs[0], Bytes<int64_t>({-7}));
  EXPECT_EQ(outs[1], Bytes<int64_t>({-7}));
  EXPECT_EQ(outs[2], Bytes<int64_t>({7}));
  EXPECT_EQ(outs[3], Bytes<uint8_t>({0, 0, 1}));
}

}  // namespace
}  // namespace tunefarm::build
