// Constant folding: params-only subgraphs become params (through each op's own compute); runtime
// values, big results and ops without a compute for their dtypes stay.
#include "compiler/passes/constant_folding.h"

#include "tests/passes/test_graphs.h"

namespace tunefarm::passes {
namespace {
using namespace testing;

TEST(ConstantFoldingTest, FoldsParamOnlyChainAndKeepsNames) {
  Graph g;
  NodeEntry x = Input(g, "x", {2, 3});
  NodeEntry a = Param(g, "a", HostTensor::FromFloats({1, 2, 3}, {3}));
  NodeEntry b = Param(g, "b", HostTensor::FromFloats({4, 5, 6}, {3}));
  NodeEntry sum = Op(g, "Add", "sum", {a, b});
  NodeEntry neg = Op(g, "Neg", "neg", {sum});
  NodeEntry y = Op(g, "Mul", "y", {x, neg});
  g.AddOutput("out", y);
  auto folded = FoldConstants(g);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(CountOp(*folded, "Add"), 0);
  EXPECT_EQ(CountOp(*folded, "Neg"), 0);
  EXPECT_EQ(CountOp(*folded, "Mul"), 1);
  ASSERT_EQ(folded->output_names(), std::vector<std::string>{"out"});
  const graph::Node& mul = folded->node(folded->outputs()[0].node);
  const graph::Node& c = folded->node(mul.inputs[1].node);
  ASSERT_TRUE(c.IsParam());
  EXPECT_EQ(c.name, "neg");
  const HostTensor& t = folded->params().at(c.name);
  EXPECT_EQ(t.GetDouble(0), -5);
  EXPECT_EQ(t.GetDouble(2), -9);
}

TEST(ConstantFoldingTest, FoldsWeightTransposeAndFloatUnary) {
  std::mt19937 rng(1);
  Graph g;
  NodeEntry x = Input(g, "x", {4, 300});
  NodeEntry w = Param(g, "w", RandomTensor({400, 300}, rng));  // 120000 elements: above the import limit
  Attrs perm;
  perm.Set("perm", std::vector<int64_t>{1, 0});
  NodeEntry wt = Op(g, "Transpose", "wt", {w}, perm);
  NodeEntry y = Op(g, "MatMul", "mm", {x, wt});
  NodeEntry s = Param(g, "s", HostTensor::FromFloats({0.0f}, {1}));
  NodeEntry e = Op(g, "Exp", "exp_s", {s});
  g.AddOutput("y", Op(g, "Mul", "scaled", {y, e}));
  auto folded = FoldConstants(g);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(CountOp(*folded, "Transpose"), 0);
  EXPECT_EQ(CountOp(*folded, "Exp"), 0);
  const HostTensor& t = folded->params().at("wt");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{300, 400}));
  EXPECT_EQ(t.GetDouble(1 * 400 + 2), g.params().at("w").GetDouble(2 * 300 + 1));
  EXPECT_EQ(folded->params().at("exp_s").GetDouble(0), 1.0);
}

TEST(ConstantFoldingTest, KeepsGrowingExpandAndRuntimeNodes) {
  Graph g;
  NodeEntry x = Input(g, "x", {1024, 1024});
  NodeEntry one = Param(g, "one", HostTensor::FromFloats({1.0f}, {1}));
  Attrs shape;
  shape.Set("shape", std::vector<int64_t>{1024, 1024});
  NodeEntry big = Op(g, "Expand", "big", {one}, shape);
  NodeEntry r = Op(g, "Relu", "r", {x});
  g.AddOutput("y", Op(g, "Add", "y", {r, big}));
  auto folded = FoldConstants(g);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(CountOp(*folded, "Expand"), 1);
  EXPECT_EQ(CountOp(*folded, "Relu"), 1);
  EXPECT_EQ(folded->nodes().size(), g.nodes().size());
}

TEST(ConstantFoldingTest, FoldsAnyOpWithACompute) {
  // Softmax was never in the old hand-written evaluator; through its compute it folds.
  Graph g;
  NodeEntry a = Param(g, "a", HostTensor::FromFloats({0, 0, 0, 0}, {1, 4}));
  g.AddOutput("y", Op(g, "Softmax", "sm", {a}));
  auto folded = FoldConstants(g);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(CountOp(*folded, "Softmax"), 0);
  const HostTensor& t = folded->params().at("sm");
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(t.GetDouble(i), 0.25);
}

TEST(ConstantFoldingTest, KeepsOpsWithoutAComputeForTheirDTypes) {
  Graph g;
  auto bits = HostTensor::Zeros(te::DType::kBool, {4});
  ASSERT_TRUE(bits.ok());
  NodeEntry a = Param(g, "a", *bits);
  g.AddOutput("y", Op(g, "Mod", "mod", {a, a}));  // Mod of bools: the kernels report it
  auto folded = FoldConstants(g);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(CountOp(*folded, "Mod"), 1);
}

TEST(ConstantFoldingTest, IntegerDivisionByZeroFoldsAsTheKernelComputesIt) {
  Graph g;
  NodeEntry a = Param(g, "a", HostTensor::FromInt64s({1, 2}, {2}));
  NodeEntry z = Param(g, "z", HostTensor::FromInt64s({0, 1}, {2}));
  g.AddOutput("y", Op(g, "Div", "div", {a, z}));
  auto folded = FoldConstants(g);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(CountOp(*folded, "Div"), 0);
  EXPECT_EQ(folded->params().at("div").ToInt64s(), (std::vector<int64_t>{1, 2}));  // x / 0 is x
}

}  // namespace
}  // namespace tunefarm::passes
