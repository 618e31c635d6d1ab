// Every registered op has a compute, and ComputeNode builds what inference promised.
#include <gtest/gtest.h>

#include "compiler/graph/op_compute.h"

namespace tunefarm::graph {
namespace {

TEST(OpCompute, EveryRegisteredOpHasACompute) {
  const OpRegistry& r = OpRegistry::Global();
  EXPECT_GE(r.Names().size(), 77u);
  for (const std::string& name : r.Names()) {
    const OpSchema* s = r.Find(name);
    EXPECT_TRUE(s->compute && s->compute->fn) << name << " has no compute";
  }
}

TEST(OpCompute, GemmNodeBuildsInferredTypeAndNamesStagesAfterTheNode) {
  Graph g;
  auto a = g.AddInput("a", {te::DType::kFloat32, {4, 3}});
  auto w = g.AddInput("w", {te::DType::kFloat32, {5, 3}});
  auto c = g.AddInput("c", {te::DType::kFloat32, {5}});
  Attrs attrs;
  attrs.Set("transB", int64_t{1});
  attrs.Set("alpha", 2.0);
  auto out = g.AddNode("Gemm", "fc", {*a, *w, *c}, attrs);
  ASSERT_TRUE(out.ok()) << out.status();
  const Node& n = g.node(out->at(0).node);
  te::DagBuilder b;
  std::vector<TeTensor> in = {b.Placeholder("a", te::DType::kFloat32, {4, 3}),
                              b.Placeholder("w", te::DType::kFloat32, {5, 3}),
                              b.Placeholder("c", te::DType::kFloat32, {5})};
  auto t = ComputeNode(b, n, in);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 1u);
  EXPECT_EQ((*t)[0].shape, (std::vector<int64_t>{4, 5}));
  auto dag = b.Build(*t);
  EXPECT_EQ(dag->tensor((*t)[0].id).name, "fc");
}

TEST(OpCompute, MaxPoolWithIndicesBuildsYAndInt64Indices) {
  Graph g;
  auto x = g.AddInput("x", {te::DType::kUInt8, {1, 2, 5, 4}});
  Attrs attrs;
  attrs.Set("kernel_shape", std::vector<int64_t>{3, 2});
  attrs.Set("pads", std::vector<int64_t>{1, 0, 1, 1});
  attrs.Set("storage_order", int64_t{1});
  auto out = g.AddNode("MaxPoolWithIndices", "mp", {*x}, attrs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ(g.type((*out)[0]).ToString(), "uint8[1,2,5,4]");
  EXPECT_EQ(g.type((*out)[1]).ToString(), "int64[1,2,5,4]");
  te::DagBuilder b;
  auto t = ComputeNode(b, g.node(out->at(0).node), {b.Placeholder("x", te::DType::kUInt8, {1, 2, 5, 4})});
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 2u);
  auto dag = b.Build(*t);
  EXPECT_EQ(dag->tensor((*t)[0].id).name, "mp");
  EXPECT_EQ(dag->tensor((*t)[1].id).name, "mp.Indices");

  attrs.Set("storage_order", int64_t{2});
  auto bad = g.AddNode("MaxPoolWithIndices", "mp2", {*x}, attrs);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("storage_order must be 0 or 1"), std::string::npos)
      << bad.status();
}

TEST(OpCompute, WrongInputCountAndUnknownOpAreErrorsNamingTheNode) {
  Node n;
  n.name = "x1";
  n.op = "NoSuchOp";
  te::DagBuilder b;
  auto t = ComputeNode(b, n, {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(t.status().message()).find("node 'x1' (op NoSuchOp)"), std::string::npos);
  n.op = "Relu";
  n.inputs = {NodeEntry{0, 0}};
  t = ComputeNode(b, n, {});
  EXPECT_FALSE(t.ok());
}

}  // namespace
}  // namespace tunefarm::graph
