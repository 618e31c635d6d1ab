// CSE merges equal nodes and params; DCE drops what no output needs.
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"

#include "tests/passes/test_graphs.h"

namespace tunefarm::passes {
namespace {
using namespace testing;

TEST(CseTest, MergesEqualNodesAndParams) {
  Graph g;
  NodeEntry x = Input(g, "x", {2, 3});
  NodeEntry a = Param(g, "a", HostTensor::FromFloats({1, 2, 3}, {3}));
  NodeEntry a2 = Param(g, "a_copy", HostTensor::FromFloats({1, 2, 3}, {3}));
  NodeEntry c = Param(g, "c", HostTensor::FromFloats({1, 2, 4}, {3}));
  NodeEntry m1 = Op(g, "Mul", "m1", {x, a});
  NodeEntry m2 = Op(g, "Mul", "m2", {x, a2});  // same as m1 once a_copy merges into a
  NodeEntry m3 = Op(g, "Mul", "m3", {x, c});   // different bytes: stays
  NodeEntry r1 = Op(g, "Relu", "r1", {m1});
  NodeEntry r2 = Op(g, "Relu", "r2", {m2});    // same as r1 once m2 merges
  NodeEntry s = Op(g, "Add", "s", {r1, r2});
  g.AddOutput("s", s);
  g.AddOutput("m3", m3);
  auto out = EliminateCommonSubexpressions(g);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(CountOp(*out, "Mul"), 2);
  EXPECT_EQ(CountOp(*out, "Relu"), 1);
  EXPECT_EQ(out->params().size(), 2u);
  const graph::Node& add = out->node(out->outputs()[0].node);
  EXPECT_EQ(add.inputs[0], add.inputs[1]);
}

TEST(CseTest, DifferentAttrsOrInputsStay) {
  Graph g;
  NodeEntry x = Input(g, "x", {2, 3});
  NodeEntry y = Input(g, "y", {2, 3});  // inputs never merge, even with equal types
  Attrs lo, hi;
  lo.Set("min", 0.0);
  hi.Set("min", 1.0);
  g.AddOutput("a", Op(g, "Clip", "c1", {x}, lo));
  g.AddOutput("b", Op(g, "Clip", "c2", {x}, hi));
  g.AddOutput("c", Op(g, "Clip", "c3", {y}, lo));
  auto out = EliminateCommonSubexpressions(g);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(CountOp(*out, "Clip"), 3);
}

TEST(DceTest, DropsUnusedNodesAndParamsKeepsInputs) {
  Graph g;
  NodeEntry x = Input(g, "x", {4});
  Input(g, "unused_input", {4});
  NodeEntry p = Param(g, "p", HostTensor::FromFloats({1, 2, 3, 4}, {4}));
  Param(g, "unused_param", HostTensor::FromFloats({1}, {1}));
  NodeEntry dead = Op(g, "Mul", "dead", {x, p});
  Op(g, "Relu", "dead2", {dead});
  g.AddOutput("y", Op(g, "Relu", "live", {x}));
  auto out = EliminateDeadCode(g);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->nodes().size(), 3u) << out->Dump();
  EXPECT_TRUE(out->HasName("unused_input"));
  EXPECT_TRUE(out->params().empty());
  EXPECT_EQ(out->output_names(), std::vector<std::string>{"y"});
}

}  // namespace
}  // namespace tunefarm::passes
