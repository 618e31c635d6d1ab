// Squares by multiplication: Pow(x, 2) on a float becomes Mul(x, x) and computes the same
// values; any other Pow is left alone.
#include "compiler/passes/square_by_multiplication.h"

#include <gtest/gtest.h>

#include "compiler/passes/constant_folding.h"
#include "tests/passes/test_graphs.h"

namespace tunefarm::passes::testing {
namespace {

int CountOps(const Graph& g, const std::string& op) {
  int n = 0;
  for (const graph::Node& node : g.nodes()) n += node.op == op;
  return n;
}

// The graph's only output, folded to a param (every input of `g` is a param).
HostTensor FoldedOutput(const Graph& g) {
  auto folded = FoldConstants(g);
  EXPECT_TRUE(folded.ok()) << folded.status();
  const graph::Node& out = folded->node(folded->outputs().at(0).node);
  EXPECT_TRUE(out.IsParam());
  return folded->params().at(out.name);
}

TEST(SquareByMultiplication, PowOfTwoBecomesMulOfTheSameValue) {
  std::mt19937 rng(5);
  Graph g;
  NodeEntry x = Param(g, "x", RandomTensor({3, 7}, rng, -4, 4));
  NodeEntry two = Param(g, "two", HostTensor::FromFloats({2.0f}, {1}));
  g.AddOutput("y", Op(g, "Pow", "square", {x, two}));

  auto out = SquareByMultiplication(g);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(CountOps(*out, "Pow"), 0);
  ASSERT_EQ(CountOps(*out, "Mul"), 1);
  for (const graph::Node& n : out->nodes())
    if (n.op == "Mul") { EXPECT_EQ(n.inputs[0], n.inputs[1]) << "x times itself"; }
  HostTensor before = FoldedOutput(g), after = FoldedOutput(*out);
  ASSERT_EQ(before.shape, after.shape);
  for (int64_t i = 0; i < before.NumElements(); ++i) EXPECT_FLOAT_EQ(after.GetDouble(i), before.GetDouble(i)) << i;
}

TEST(SquareByMultiplication, LeavesEveryOtherPowAlone) {
  std::mt19937 rng(6);
  Graph g;
  NodeEntry x = Input(g, "x", {3});
  NodeEntry three = Param(g, "three", HostTensor::FromFloats({3.0f}, {}));
  NodeEntry twos = Param(g, "twos", HostTensor::FromFloats({2.0f, 2.0f, 2.0f}, {3}));
  NodeEntry wider = Param(g, "wider", HostTensor::FromFloats({2.0f}, {1, 1}));  // y would be [1, 3]
  NodeEntry runtime = Input(g, "e", {1});
  NodeEntry ints = Param(g, "ints", HostTensor::FromInt64s({1, 2, 3}, {3}));
  NodeEntry int_two = Param(g, "int_two", HostTensor::FromInt64s({2}, {}));
  g.AddOutput("a", Op(g, "Pow", "cube", {x, three}));
  g.AddOutput("b", Op(g, "Pow", "elementwise_twos", {x, twos}));
  g.AddOutput("c", Op(g, "Pow", "widening", {x, wider}));
  g.AddOutput("d", Op(g, "Pow", "runtime_exponent", {x, runtime}));
  g.AddOutput("e", Op(g, "Pow", "integer_base", {ints, int_two}));
  auto out = SquareByMultiplication(g);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(CountOps(*out, "Pow"), 5);
  EXPECT_EQ(CountOps(*out, "Mul"), 0);
}

}  // namespace
}  // namespace tunefarm::passes::testing
