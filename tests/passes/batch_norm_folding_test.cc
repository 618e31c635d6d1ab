// BN folding: structure and numerics against a naive NCHW reference.
#include "compiler/passes/batch_norm_folding.h"

#include "compiler/passes/pass_pipeline.h"
#include "tests/passes/test_graphs.h"

namespace tunefarm::passes {
namespace {
using namespace testing;

// x → Conv(w[, b]) → BatchNormalization → Relu; random weights and statistics.
Graph ConvBnGraph(std::mt19937& rng, bool conv_bias, int64_t group, int64_t stride) {
  Graph g;
  int64_t cin = 4, cout = 6;
  NodeEntry x = Input(g, "x", {2, cin, 7, 7});
  NodeEntry w = Param(g, "w", RandomTensor({cout, cin / group, 3, 3}, rng));
  std::vector<NodeEntry> conv_in = {x, w};
  if (conv_bias) conv_in.push_back(Param(g, "b", RandomTensor({cout}, rng)));
  NodeEntry conv = Op(g, "Conv", "conv1", conv_in, ConvAttrs({1, 0, 1, 2}, {stride, stride}, group));
  NodeEntry scale = Param(g, "bn.scale", RandomTensor({cout}, rng, 0.5, 2));
  NodeEntry bias = Param(g, "bn.bias", RandomTensor({cout}, rng));
  NodeEntry mean = Param(g, "bn.mean", RandomTensor({cout}, rng));
  NodeEntry var = Param(g, "bn.var", RandomTensor({cout}, rng, 0.1, 3));
  Attrs eps;
  eps.Set("epsilon", 1e-3);
  NodeEntry bn = Op(g, "BatchNormalization", "bn1", {conv, scale, bias, mean, var}, eps);
  g.AddOutput("y", Op(g, "Relu", "relu", {bn}));
  return g;
}

void ExpectSameOutputs(const Graph& before, const Graph& after, std::mt19937& rng) {
  std::map<std::string, HostTensor> inputs;
  for (const graph::Node& n : before.nodes())
    if (n.IsInput()) inputs[n.name] = RandomTensor(n.outputs[0].shape, rng);
  auto want = ReferenceEvaluator(before).Run(inputs);
  auto got = ReferenceEvaluator(after).Run(inputs);
  ASSERT_EQ(want.size(), got.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(want[o].size(), got[o].size());
    for (size_t i = 0; i < want[o].size(); ++i) ASSERT_NEAR(want[o][i], got[o][i], 1e-4 * (1 + std::fabs(want[o][i])));
  }
}

TEST(BatchNormFoldingTest, ConvBnFoldsIntoConvWithSameNumerics) {
  std::mt19937 rng(7);
  for (bool bias : {false, true})
    for (int64_t group : {1, 2})
      for (int64_t stride : {1, 2}) {
        SCOPED_TRACE(StrCat("bias=", bias, " group=", group, " stride=", stride));
        Graph g = ConvBnGraph(rng, bias, group, stride);
        auto folded = FoldBatchNorm(g);
        ASSERT_TRUE(folded.ok()) << folded.status();
        EXPECT_EQ(CountOp(*folded, "BatchNormalization"), 0);
        EXPECT_EQ(CountOp(*folded, "Conv"), 1);
        EXPECT_EQ(CountOp(*folded, "Mul"), 0);
        for (const graph::Node& n : folded->nodes())
          if (n.op == "Conv") {
            EXPECT_EQ(n.inputs.size(), 3u) << "the folded Conv needs a bias";
          }
        ExpectSameOutputs(g, *folded, rng);
      }
}

TEST(BatchNormFoldingTest, SharedConvOutputBecomesMulAdd) {
  std::mt19937 rng(3);
  Graph g;
  NodeEntry x = Input(g, "x", {1, 3, 5, 5});
  NodeEntry w = Param(g, "w", RandomTensor({3, 3, 1, 1}, rng));
  NodeEntry conv = Op(g, "Conv", "conv", {x, w}, ConvAttrs({0, 0, 0, 0}, {1, 1}));
  std::vector<NodeEntry> stats;
  for (const char* name : {"s", "b", "m", "v"})
    stats.push_back(Param(g, name, RandomTensor({3}, rng, 0.2, 1.5)));
  NodeEntry bn = Op(g, "BatchNormalization", "bn", {conv, stats[0], stats[1], stats[2], stats[3]});
  g.AddOutput("y", bn);
  g.AddOutput("conv_out", conv);  // the Conv's output is read elsewhere: it cannot absorb the BN
  auto folded = FoldBatchNorm(g);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(CountOp(*folded, "BatchNormalization"), 0);
  EXPECT_EQ(CountOp(*folded, "Mul"), 1);
  EXPECT_EQ(CountOp(*folded, "Add"), 1);
  EXPECT_EQ(folded->output_names(), (std::vector<std::string>{"y", "conv_out"}));
  ExpectSameOutputs(g, *folded, rng);
}

TEST(BatchNormFoldingTest, RuntimeStatisticsStay) {
  Graph g;
  NodeEntry x = Input(g, "x", {1, 2, 3, 3});
  NodeEntry s = Input(g, "s", {2});
  NodeEntry b = Param(g, "b", HostTensor::FromFloats({0, 0}, {2}));
  NodeEntry m = Param(g, "m", HostTensor::FromFloats({0, 0}, {2}));
  NodeEntry v = Param(g, "v", HostTensor::FromFloats({1, 1}, {2}));
  g.AddOutput("y", Op(g, "BatchNormalization", "bn", {x, s, b, m, v}));
  auto folded = FoldBatchNorm(g);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(CountOp(*folded, "BatchNormalization"), 1);
}

TEST(BatchNormFoldingTest, PipelineLeavesNoStaleParams) {
  std::mt19937 rng(11);
  Graph g = ConvBnGraph(rng, true, 1, 1);
  auto opt = OptimizeGraph(g);
  ASSERT_TRUE(opt.ok()) << opt.status();
  // x, folded weight, folded bias, Conv, Relu.
  EXPECT_EQ(opt->nodes().size(), 5u) << opt->Dump();
  EXPECT_EQ(opt->params().size(), 2u);
  ExpectSameOutputs(g, *opt, rng);
}

// Statistics computed from params (var = Abs(v)) fold first, then the BN folds into the Conv.
TEST(BatchNormFoldingTest, PipelineFoldsComputedStatistics) {
  std::mt19937 rng(5);
  Graph g;
  NodeEntry x = Input(g, "x", {1, 2, 4, 4});
  NodeEntry w = Param(g, "w", RandomTensor({3, 2, 3, 3}, rng));
  NodeEntry conv = Op(g, "Conv", "conv", {x, w}, ConvAttrs({1, 1, 1, 1}, {1, 1}));
  NodeEntry s = Param(g, "s", RandomTensor({3}, rng));
  NodeEntry b = Param(g, "b", RandomTensor({3}, rng));
  NodeEntry m = Param(g, "m", RandomTensor({3}, rng));
  NodeEntry v = Op(g, "Abs", "var", {Param(g, "v", RandomTensor({3}, rng, -2, -0.5))});
  g.AddOutput("y", Op(g, "BatchNormalization", "bn", {conv, s, b, m, v}));
  auto opt = OptimizeGraph(g);
  ASSERT_TRUE(opt.ok()) << opt.status();
  EXPECT_EQ(CountOp(*opt, "BatchNormalization"), 0);
  EXPECT_EQ(CountOp(*opt, "Abs"), 0);
  EXPECT_EQ(opt->OpCounts().size(), 1u) << opt->Dump();
  // The reference evaluator has no Abs: compare against the BN graph with |v| precomputed.
  Graph ref;
  NodeEntry rx = Input(ref, "x", {1, 2, 4, 4});
  NodeEntry rconv = Op(ref, "Conv", "conv", {rx, Param(ref, "w", g.params().at("w"))}, ConvAttrs({1, 1, 1, 1}, {1, 1}));
  HostTensor abs_v = g.params().at("v");
  for (int64_t i = 0; i < 3; ++i) abs_v.SetDouble(i, std::fabs(abs_v.GetDouble(i)));
  ref.AddOutput("y", Op(ref, "BatchNormalization", "bn",
                        {rconv, Param(ref, "s", g.params().at("s")), Param(ref, "b", g.params().at("b")),
                         Param(ref, "m", g.params().at("m")), Param(ref, "v", abs_v)}));
  ExpectSameOutputs(ref, *opt, rng);
}

}  // namespace
}  // namespace tunefarm::passes
