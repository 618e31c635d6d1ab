// Fusion by op pattern on small graphs.
#include "compiler/passes/fusion.h"

#include <set>

#include "tests/passes/test_graphs.h"

namespace tunefarm::passes {
namespace {
using namespace testing;

std::vector<std::string> Ops(const Graph& g, const FusedGroup& group) {
  std::vector<std::string> ops;
  for (int id : group.nodes) ops.push_back(g.node(id).op);
  return ops;
}

// Every operator node in exactly one group; groups in an order where every read value exists.
void ExpectValidPlan(const Graph& g, const FusionPlan& plan) {
  std::map<int, int> group_of;
  for (size_t i = 0; i < plan.groups.size(); ++i)
    for (int id : plan.groups[i].nodes) EXPECT_TRUE(group_of.emplace(id, static_cast<int>(i)).second);
  for (size_t id = 0; id < g.nodes().size(); ++id)
    if (!g.node(id).IsInput() && !g.node(id).IsParam()) {
      EXPECT_TRUE(group_of.count(static_cast<int>(id)));
    }
  std::set<NodeEntry> available;
  for (size_t id = 0; id < g.nodes().size(); ++id)
    if (g.node(id).IsInput() || g.node(id).IsParam()) available.insert({static_cast<int>(id), 0});
  for (const FusedGroup& group : plan.groups) {
    for (NodeEntry e : GroupInputs(g, group)) EXPECT_TRUE(available.count(e)) << "%" << e.node << " read too early";
    for (NodeEntry e : group.outputs) available.insert(e);
  }
  for (NodeEntry e : g.outputs()) EXPECT_TRUE(available.count(e));
}

TEST(FusionTest, ConvBiasReluResidualFuse) {
  std::mt19937 rng(1);
  Graph g;
  NodeEntry x = Input(g, "x", {1, 4, 8, 8});
  NodeEntry r0 = Op(g, "Relu", "r0", {x});
  NodeEntry w = Param(g, "w", RandomTensor({4, 4, 3, 3}, rng));
  NodeEntry c1 = Op(g, "Conv", "c1", {r0, w}, ConvAttrs({1, 1, 1, 1}, {1, 1}));
  NodeEntry b = Param(g, "b", RandomTensor({1, 4, 1, 1}, rng));
  NodeEntry biased = Op(g, "Add", "bias", {c1, b});
  NodeEntry r1 = Op(g, "Relu", "r1", {biased});
  NodeEntry c2 = Op(g, "Conv", "c2", {r1, w}, ConvAttrs({1, 1, 1, 1}, {1, 1}));
  NodeEntry res = Op(g, "Add", "res", {c2, r0});  // residual: r0 has two readers
  NodeEntry r2 = Op(g, "Relu", "r2", {res});
  g.AddOutput("y", r2);
  auto plan = FuseOps(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ExpectValidPlan(g, *plan);
  ASSERT_EQ(plan->groups.size(), 3u) << FusionPlanToString(g, *plan);
  EXPECT_EQ(Ops(g, plan->groups[0]), (std::vector<std::string>{"Relu"}));
  EXPECT_EQ(Ops(g, plan->groups[1]), (std::vector<std::string>{"Conv", "Add", "Relu"}));
  EXPECT_EQ(Ops(g, plan->groups[2]), (std::vector<std::string>{"Conv", "Add", "Relu"}));
  EXPECT_EQ(plan->groups[1].anchor, c1.node);
  EXPECT_EQ(plan->groups[1].pattern, graph::OpPattern::kOutElementwiseFusable);
  EXPECT_EQ(plan->groups[2].outputs, std::vector<NodeEntry>{r2});
  EXPECT_EQ(plan->groups[0].outputs, std::vector<NodeEntry>{r0});
}

TEST(FusionTest, SharedOrOutputIntermediatesAreNotFusedAway) {
  std::mt19937 rng(2);
  Graph g;
  NodeEntry x = Input(g, "x", {2, 8});
  NodeEntry w = Param(g, "w", RandomTensor({8, 8}, rng));
  NodeEntry mm = Op(g, "MatMul", "mm", {x, w});
  NodeEntry a = Op(g, "Relu", "a", {mm});
  NodeEntry b = Op(g, "Sigmoid", "b", {mm});  // mm has two readers: both start their own group
  NodeEntry mm2 = Op(g, "MatMul", "mm2", {x, w});
  NodeEntry c = Op(g, "Tanh", "c", {mm2});     // mm2 is a graph output: not fused away
  g.AddOutput("a", a);
  g.AddOutput("b", b);
  g.AddOutput("mm2", mm2);
  g.AddOutput("c", c);
  auto plan = FuseOps(g);
  ASSERT_TRUE(plan.ok());
  ExpectValidPlan(g, *plan);
  EXPECT_EQ(plan->groups.size(), 5u) << FusionPlanToString(g, *plan);
  for (const FusedGroup& group : plan->groups) EXPECT_EQ(group.nodes.size(), 1u);
}

TEST(FusionTest, InjectiveChainsReductionEpilogueOpaqueAndViews) {
  Graph g;
  NodeEntry x = Input(g, "x", {2, 3, 4});
  Attrs perm, shape, axes;
  perm.Set("perm", std::vector<int64_t>{0, 2, 1});
  shape.Set("shape", std::vector<int64_t>{2, 12});
  axes.Set("axes", std::vector<int64_t>{1});
  NodeEntry t = Op(g, "Transpose", "t", {x}, perm);
  NodeEntry e = Op(g, "Exp", "e", {t});
  NodeEntry sum = Op(g, "ReduceSum", "sum", {e}, axes);
  NodeEntry sq = Op(g, "Sqrt", "sq", {sum});
  NodeEntry sm = Op(g, "Softmax", "sm", {sq});
  NodeEntry r = Op(g, "Relu", "r", {sm});
  NodeEntry flat = Op(g, "Reshape", "flat", {x}, shape);
  g.AddOutput("r", r);
  g.AddOutput("flat", flat);
  auto plan = FuseOps(g);
  ASSERT_TRUE(plan.ok());
  ExpectValidPlan(g, *plan);
  ASSERT_EQ(plan->groups.size(), 4u) << FusionPlanToString(g, *plan);
  // The reduction reads each element of the chain once: the chain is its prologue.
  EXPECT_EQ(Ops(g, plan->groups[0]), (std::vector<std::string>{"Transpose", "Exp", "ReduceSum", "Sqrt"}));
  EXPECT_EQ(plan->groups[0].anchor, sum.node);
  EXPECT_EQ(plan->groups[0].pattern, graph::OpPattern::kReduction);
  EXPECT_EQ(plan->groups[0].outputs, std::vector<NodeEntry>{sq});
  EXPECT_EQ(Ops(g, plan->groups[1]), (std::vector<std::string>{"Softmax"}));
  EXPECT_EQ(Ops(g, plan->groups[2]), (std::vector<std::string>{"Relu"}));
  EXPECT_EQ(Ops(g, plan->groups[3]), (std::vector<std::string>{"Reshape"}));
  EXPECT_TRUE(plan->groups[3].is_view);
  EXPECT_FALSE(plan->groups[0].is_view);
  std::string text = FusionPlanToString(g, *plan);
  EXPECT_NE(text.find("#0 Transpose+Exp+ReduceSum+Sqrt anchor=ReduceSum 'sum' (reduction)"), std::string::npos) << text;
}

TEST(FusionTest, ALayerNormSquaresInsideItsSecondReduction) {
  // PyTorch's decomposed layer norm: d = x - mean(x) is read twice (the square and the
  // division), so it ends the first reduction's group; the square joins the second reduction.
  Graph g;
  NodeEntry x = Input(g, "x", {4, 8});
  Attrs axes;
  axes.Set("axes", std::vector<int64_t>{1});
  NodeEntry mean = Op(g, "ReduceMean", "mean", {x}, axes);
  NodeEntry d = Op(g, "Sub", "d", {x, mean});
  NodeEntry square = Op(g, "Mul", "square", {d, d});
  NodeEntry var = Op(g, "ReduceMean", "var", {square}, axes);
  NodeEntry stddev = Op(g, "Sqrt", "stddev", {var});
  NodeEntry y = Op(g, "Div", "y", {d, stddev});
  g.AddOutput("y", y);
  auto plan = FuseOps(g);
  ASSERT_TRUE(plan.ok());
  ExpectValidPlan(g, *plan);
  ASSERT_EQ(plan->groups.size(), 2u) << FusionPlanToString(g, *plan);
  EXPECT_EQ(Ops(g, plan->groups[0]), (std::vector<std::string>{"ReduceMean", "Sub"}));
  EXPECT_EQ(Ops(g, plan->groups[1]), (std::vector<std::string>{"Mul", "ReduceMean", "Sqrt", "Div"}));
  EXPECT_EQ(plan->groups[1].anchor, var.node);
}

TEST(FusionTest, AReductionLeavesAChainThatOthersReadOrAnOpaqueOp) {
  Graph g;
  NodeEntry x = Input(g, "x", {4, 8});
  Attrs axes;
  axes.Set("axes", std::vector<int64_t>{1});
  NodeEntry e = Op(g, "Exp", "e", {x});
  NodeEntry sum = Op(g, "ReduceSum", "sum", {e}, axes);  // e is also read by the Div below
  NodeEntry y = Op(g, "Div", "y", {e, sum});
  NodeEntry sm = Op(g, "Softmax", "sm", {y});
  NodeEntry max = Op(g, "ReduceMax", "max", {sm}, axes);  // an opaque group stays whole
  g.AddOutput("max", max);
  auto plan = FuseOps(g);
  ASSERT_TRUE(plan.ok());
  ExpectValidPlan(g, *plan);
  ASSERT_EQ(plan->groups.size(), 4u) << FusionPlanToString(g, *plan);
  EXPECT_EQ(Ops(g, plan->groups[0]), (std::vector<std::string>{"Exp"}));
  EXPECT_EQ(Ops(g, plan->groups[1]), (std::vector<std::string>{"ReduceSum", "Div"}));
  EXPECT_EQ(Ops(g, plan->groups[2]), (std::vector<std::string>{"Softmax"}));
  EXPECT_EQ(Ops(g, plan->groups[3]), (std::vector<std::string>{"ReduceMax"}));
}

}  // namespace
}  // namespace tunefarm::passes
