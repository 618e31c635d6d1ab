// The NCHW[x]c layout pass: structure (what became blocked, where conversions sit, weights
// packed as params) and numerics through the whole build (plan -> artifact -> runtime) against
// the node-by-node reference of the original NCHW graph, at blocks 8 and 16, with channel
// counts that the block divides and ones it does not.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>

#include "compiler/build/model_builder.h"
#include "compiler/codegen/host_target.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/passes/layout.h"
#include "compiler/passes/layout_pack.h"
#include "compiler/passes/pass_pipeline.h"
#include "deploy/tunefarm_runtime.h"
#include "tests/build/graph_reference.h"
#include "tests/passes/test_graphs.h"

namespace tunefarm::passes {
namespace {

using namespace testing;

Attrs Window(std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads) {
  Attrs a;
  a.Set("kernel_shape", std::move(kernel));
  a.Set("strides", std::move(strides));
  a.Set("pads", std::move(pads));
  return a;
}

NodeEntry Conv(Graph& g, const std::string& name, NodeEntry x, int64_t cin, int64_t cout, int64_t k, int64_t stride,
               std::mt19937& rng, int64_t group = 1) {
  int64_t pad = k / 2;
  return Op(g, "Conv", name,
            {x, Param(g, name + ".w", RandomTensor({cout, cin / group, k, k}, rng)),
             Param(g, name + ".b", RandomTensor({cout}, rng))},
            ConvAttrs({pad, pad, pad, pad}, {stride, stride}, group));
}

struct Channels {
  int64_t c, k, s, e;  // input, conv, squeeze, expand
};

// 64 channels: the 3x3 stride-1 convs run as Winograd (F(4x4) on 10x10, F(2x2) on 5x5).
const Channels kWide = {64, 64, 64, 64};
// 72 classes: blocks of 8 at 8 and 16 lanes; at 16 lanes the classifier computes 80 channels.
const Channels kClasses = {16, 72, 0, 0};

// conv -> relu -> maxpool -> conv -> residual add -> relu -> per-channel mul -> scalar add
// -> global pool -> flatten -> gemm; the spatial relu output is a second graph output.
Graph ResidualGraph(const Channels& ch, std::mt19937& rng) {
  Graph g;
  NodeEntry x = Input(g, "x", {1, ch.c, 10, 10});
  NodeEntry a = Op(g, "Relu", "relu1", {Conv(g, "conv1", x, ch.c, ch.k, 3, 1, rng)});
  NodeEntry p = Op(g, "MaxPool", "pool", {a}, Window({3, 3}, {2, 2}, {1, 1, 1, 1}));
  NodeEntry b = Conv(g, "conv2", p, ch.k, ch.k, 3, 1, rng);
  NodeEntry r = Op(g, "Relu", "relu2", {Op(g, "Add", "res", {b, p})});
  NodeEntry m = Op(g, "Mul", "scale", {r, Param(g, "scale.c", RandomTensor({ch.k, 1, 1}, rng))});
  NodeEntry s = Op(g, "Add", "shift", {m, Param(g, "shift.c", RandomTensor({1}, rng))});
  NodeEntry gp = Op(g, "GlobalAveragePool", "gap", {s});
  Attrs flat;
  flat.Set("axis", int64_t{1});
  NodeEntry f = Op(g, "Flatten", "flat", {gp}, flat);
  Attrs gemm;
  gemm.Set("transB", int64_t{1});
  g.AddOutput("logits", Op(g, "Gemm", "fc", {f, Param(g, "fc.w", RandomTensor({5, ch.k}, rng)),
                                             Param(g, "fc.b", RandomTensor({5}, rng))}, gemm));
  g.AddOutput("features", r);
  return g;
}

// A squeezenet fire module: squeeze 1x1, expand 1x1 and 3x3, channel concat, average pool.
Graph FireGraph(const Channels& ch, std::mt19937& rng) {
  Graph g;
  NodeEntry x = Input(g, "x", {1, ch.c, 9, 9});
  NodeEntry sq = Op(g, "Relu", "sq_relu", {Conv(g, "squeeze", x, ch.c, ch.s, 1, 1, rng)});
  NodeEntry e1 = Op(g, "Relu", "e1_relu", {Conv(g, "expand1", sq, ch.s, ch.e, 1, 1, rng)});
  NodeEntry e3 = Op(g, "Relu", "e3_relu", {Conv(g, "expand3", sq, ch.s, ch.e, 3, 1, rng)});
  Attrs cat;
  cat.Set("axis", int64_t{1});
  NodeEntry c = Op(g, "Concat", "cat", {e1, e3}, cat);
  Attrs avg = Window({2, 2}, {2, 2}, {0, 0, 1, 1});
  avg.Set("count_include_pad", int64_t{0});
  g.AddOutput("y", Op(g, "AveragePool", "avg", {c}, avg));
  return g;
}

// A mobilenet_v2 block: expand 1x1 -> Clip -> depthwise 3x3 / 2 -> Clip -> project 1x1, then an
// Add with a runtime NCHW input (not blockable: the region ends there).
Graph DepthwiseGraph(const Channels& ch, std::mt19937& rng) {
  Graph g;
  NodeEntry x = Input(g, "x", {1, ch.c, 12, 12});
  Attrs clip;
  clip.Set("min", 0.0);
  clip.Set("max", 0.5);
  NodeEntry a = Op(g, "Clip", "clip1", {Conv(g, "expand", x, ch.c, ch.k, 1, 1, rng)}, clip);
  NodeEntry d = Op(g, "Clip", "clip2", {Conv(g, "dw", a, ch.k, ch.k, 3, 2, rng, ch.k)}, clip);
  NodeEntry p = Conv(g, "project", d, ch.k, ch.c, 1, 1, rng);
  NodeEntry other = Input(g, "other", {1, ch.c, 6, 6});
  g.AddOutput("y", Op(g, "Add", "sum", {p, other}));
  return g;
}

// squeezenet's classifier: conv 1x1 to k classes -> relu -> global average pool -> flatten, and
// beside it a max pool and a per-channel add of the relu output (the add's param is padded too).
Graph ClassifierGraph(const Channels& ch, std::mt19937& rng) {
  Graph g;
  NodeEntry x = Input(g, "x", {1, ch.c, 6, 6});
  NodeEntry a = Op(g, "Relu", "relu1", {Conv(g, "conv1", x, ch.c, ch.c, 3, 1, rng)});
  NodeEntry r = Op(g, "Relu", "relu2", {Conv(g, "classes", a, ch.c, ch.k, 1, 1, rng)});
  Attrs flat;
  flat.Set("axis", int64_t{1});
  g.AddOutput("logits", Op(g, "Flatten", "flat", {Op(g, "GlobalAveragePool", "gap", {r})}, flat));
  g.AddOutput("pooled", Op(g, "MaxPool", "pool", {r}, Window({2, 2}, {2, 2}, {0, 0, 0, 0})));
  g.AddOutput("shifted", Op(g, "Add", "shift", {r, Param(g, "shift.c", RandomTensor({ch.k, 1, 1}, rng))}));
  return g;
}

// Two mobilenet_v2 bottlenecks at k channels (72: blocks of 8, or at 16 lanes five blocks of 16,
// the last half padding): project 1x1 to k, then expand 1x1 -> Clip -> depthwise 3x3 -> Clip
// -> project 1x1 to k -> per-channel scale -> residual Add, then expand 1x1 reading that sum; the
// sum is also a graph output. A padded value read by 1x1 convs (zero input weights), a
// depthwise conv (its own padding channels) and an Add of two padded values.
Graph BottleneckGraph(const Channels& ch, std::mt19937& rng) {
  Graph g;
  NodeEntry x = Input(g, "x", {1, ch.c, 8, 8});
  Attrs clip;
  clip.Set("min", 0.0);
  clip.Set("max", 6.0);
  NodeEntry p1 = Conv(g, "project1", x, ch.c, ch.k, 1, 1, rng);
  NodeEntry e = Op(g, "Clip", "clip1", {Conv(g, "expand", p1, ch.k, ch.e, 1, 1, rng)}, clip);
  NodeEntry d = Op(g, "Clip", "clip2", {Conv(g, "dw", e, ch.e, ch.e, 3, 1, rng, ch.e)}, clip);
  NodeEntry p2 = Conv(g, "project2", d, ch.e, ch.k, 1, 1, rng);
  NodeEntry m = Op(g, "Mul", "scale", {p2, Param(g, "scale.c", RandomTensor({ch.k, 1, 1}, rng))});
  NodeEntry sum = Op(g, "Add", "res", {m, p1});
  NodeEntry dw2 = Op(g, "Clip", "clip3", {Conv(g, "dw2", sum, ch.k, ch.k, 3, 1, rng, ch.k)}, clip);
  g.AddOutput("y", Conv(g, "expand2", dw2, ch.k, ch.s, 1, 1, rng));
  g.AddOutput("sum", sum);
  return g;
}

// 72 channels: blocks of 8 at 8 lanes; at 16 the projections compute 80.
const Channels kBottleneck = {16, 72, 32, 96};

int Count(const Graph& g, const std::string& op) {
  auto counts = g.OpCounts();
  return counts.count(op) ? counts.at(op) : 0;
}

// A divisor, preferring a power of two (whole vector registers) unless a larger divisor is
// more than twice as wide.
TEST(LayoutPassTest, ChannelBlockIsADivisorPreferringPowersOfTwo) {
  EXPECT_EQ(ChannelBlock(64, 16), 16);
  EXPECT_EQ(ChannelBlock(3, 16), 3);
  EXPECT_EQ(ChannelBlock(1000, 16), 8);
  EXPECT_EQ(ChannelBlock(24, 16), 8);
  EXPECT_EQ(ChannelBlock(12, 16), 12);
  EXPECT_EQ(ChannelBlock(12, 8), 4);
  EXPECT_EQ(ChannelBlock(20, 16), 10);
  EXPECT_EQ(ChannelBlock(7, 4), 1);
}

TEST(LayoutPassTest, PackedWeightHoldsEveryElementAtItsBlockedIndex) {
  std::mt19937 rng(1);
  HostTensor w = RandomTensor({6, 4, 3, 2}, rng);
  HostTensor p = PackConvWeight(w, 2, 3);
  ASSERT_EQ(p.shape, (std::vector<int64_t>{2, 2, 3, 2, 2, 3}));
  for (int64_t k = 0; k < 6; ++k)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t rs = 0; rs < 6; ++rs) {
        int64_t src = (k * 4 + c) * 6 + rs;
        int64_t dst = (((k / 3) * 2 + c / 2) * 6 + rs) * 6 + (c % 2) * 3 + k % 3;
        EXPECT_EQ(p.GetDouble(dst), w.GetDouble(src));
      }
}

// The whole residual graph is one region: one conversion in (the graph input), the global
// pool's output leaves as a view, the spatial output through one conversion out.
TEST(LayoutPassTest, ConversionsOnlyAtTheRegionBoundary) {
  std::mt19937 rng(2);
  Graph g = ResidualGraph({16, 32, 0, 0}, rng);
  auto out = ConvertLayout(g, 16);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Count(*out, "Conv"), 0) << out->Dump();
  EXPECT_EQ(Count(*out, "ConvNCHWc"), 2);
  EXPECT_EQ(Count(*out, "MaxPoolNCHWc"), 1);
  EXPECT_EQ(Count(*out, "GlobalAveragePoolNCHWc"), 1);
  EXPECT_EQ(Count(*out, "LayoutTransform"), 2) << out->Dump();  // x in, "features" out
  for (const graph::Node& n : out->nodes()) {
    if (n.op == "ConvNCHWc") {
      EXPECT_TRUE(out->node(n.inputs[1].node).IsParam());
      EXPECT_EQ(out->type(n.inputs[1]).shape.size(), 6u);
      EXPECT_EQ(out->type(n.inputs[2]).shape, (std::vector<int64_t>{2, 1, 1, 16}));
    }
    if (n.op == "Gemm") { EXPECT_EQ(out->node(n.inputs[0].node).op, "Flatten"); }
  }
}

TEST(LayoutPassTest, GraphWithoutConvIsUnchanged) {
  Graph g;
  NodeEntry x = Input(g, "x", {1, 16, 4, 4});
  g.AddOutput("y", Op(g, "Relu", "r", {x}));
  auto out = ConvertLayout(g, 8);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->Dump(), g.Dump());
}

// Concat parts with different blocks cannot concatenate blocked: the concat runs in NCHW.
TEST(LayoutPassTest, ConcatOfMismatchedBlocksStaysNchw) {
  std::mt19937 rng(3);
  Graph g = FireGraph({8, 0, 8, 12}, rng);  // at 8: parts of 12 channels in blocks of 6, their sum 24 in 8
  auto out = ConvertLayout(g, 8);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Count(*out, "ConvNCHWc"), 3);
  EXPECT_EQ(Count(*out, "Concat"), 1);
  EXPECT_EQ(Count(*out, "AveragePool"), 1);  // after an NCHW concat the pool stays NCHW
  EXPECT_EQ(Count(*out, "LayoutTransform"), 3) << out->Dump();
}

// The shared CNNs after the whole pipeline: every Conv blocked, the RGB input read by the stem
// as NCHW1c through a view (no conversion kernel), the classifier reading the global pool's
// output directly; at blocks 8 and 16. (At 16, squeezenet's 1000 classes are padded to 63
// blocks of 16, and the pooled [1, 63, 1, 1, 16] leaves through a 1008-float conversion that
// drops the padding.)
TEST(LayoutPassTest, SharedCnnsConvertOnlyAtTheirInput) {
  for (const char* model : {"resnet18", "mobilenet_v2", "squeezenet1_1"}) {
    auto g = frontend::ImportOnnxFile(StrCat(TUNEFARM_SHARED_DIR, "/models/", model, ".onnx"));
    ASSERT_TRUE(g.ok()) << g.status();
    for (int block : {8, 16}) {
      PassOptions options;
      options.layout_block = block;
      auto out = OptimizeGraph(*g, options);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(Count(*out, "Conv"), 0) << model;
      EXPECT_EQ(Count(*out, "ConvNCHWc") + Count(*out, "WinogradInverse"), Count(*g, "Conv")) << model;
      EXPECT_EQ(Count(*out, "WinogradDataPack"), Count(*out, "WinogradInverse")) << model;
      const bool padded = std::string(model) == "squeezenet1_1" && block == 16;
      EXPECT_EQ(Count(*out, "LayoutTransform"), padded ? 1 : 0) << model << " block " << block;
      int input_views = 0;
      for (const graph::Node& n : out->nodes()) {
        if (n.op == "Reshape" && out->node(n.inputs[0].node).IsInput()) {
          EXPECT_EQ(n.outputs[0].shape, (std::vector<int64_t>{1, 3, 224, 224, 1})) << model;
          ++input_views;
        }
        if (n.op == "ConvNCHWc" || n.op == "WinogradBatchGemm") {
          EXPECT_TRUE(out->node(n.inputs[1].node).IsParam()) << n.name;
        }
        if (n.op == "LayoutTransform" && n.attrs.GetString("dst_layout") == "NCHW") {
          EXPECT_EQ(out->type(n.inputs[0]).NumElements(), 1008) << model << " block " << block;
        }
      }
      EXPECT_EQ(input_views, 1) << model << " block " << block;
      // resnet18: every 3x3 stride-1 conv (all have >= 64 channels) by Winograd; the depthwise
      // and 1x1 convs of the other two never.
      const int winograd = Count(*out, "WinogradInverse");
      if (std::string(model) == "resnet18") {
        EXPECT_GT(winograd, 0);
      } else if (std::string(model) == "mobilenet_v2") {
        EXPECT_EQ(winograd, 0);
      }
      options.winograd = false;
      auto direct = OptimizeGraph(*g, options);
      ASSERT_TRUE(direct.ok()) << direct.status();
      EXPECT_EQ(Count(*direct, "ConvNCHWc"), Count(*g, "Conv")) << model;
    }
  }
}

struct Case {
  const char* name;
  Graph (*make)(const Channels&, std::mt19937&);
  Channels channels;
  int block;
  // F(4x4) Winograd adds float32 roundings to 576-term sums of [-1, 1] values: a few 1e-4.
  double tolerance = 1e-4;
};

std::string PrintCase(const ::testing::TestParamInfo<Case>& info) {
  return StrCat(info.param.name, "_c", info.param.channels.c, "_k", info.param.channels.k, "_b", info.param.block);
}

class LayoutNumericsTest : public ::testing::TestWithParam<Case> {};

std::vector<std::vector<float>> RunArtifact(const std::string& bytes, const std::vector<std::vector<float>>& inputs) {
  char path[] = "/tmp/tunefarm_layout_test_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(fd);
  std::vector<std::vector<float>> outputs;
  tunefarm_model* model = nullptr;
  EXPECT_EQ(tunefarm_model_load(path, 2, &model), TUNEFARM_RT_OK) << tunefarm_last_error();
  if (model != nullptr) {
    for (size_t i = 0; i < inputs.size(); ++i)
      EXPECT_EQ(tunefarm_model_set_input(model, static_cast<int>(i), inputs[i].data(), inputs[i].size() * 4),
                TUNEFARM_RT_OK);
    EXPECT_EQ(tunefarm_model_run(model), TUNEFARM_RT_OK) << tunefarm_last_error();
    for (int i = 0; i < tunefarm_model_num_outputs(model); ++i) {
      tunefarm_tensor_info info;
      EXPECT_EQ(tunefarm_model_output_info(model, i, &info), TUNEFARM_RT_OK);
      std::vector<float> out(info.bytes / 4);
      EXPECT_EQ(tunefarm_model_get_output(model, i, out.data(), info.bytes), TUNEFARM_RT_OK);
      outputs.push_back(std::move(out));
    }
    tunefarm_model_free(model);
  }
  std::remove(path);
  return outputs;
}

// conv -> relu -> MaxPoolWithIndices -> conv: the two-output pool is not a pool the layout pass
// blocks, so it reads and writes NCHW between the blocked convs, and the whole build (fusion, its
// own kernel, the runtime) gives the reference's Y and (exact) Indices; relu zeros make ties.
TEST(LayoutPassTest, ClassesWithoutAWholeVectorDivisorArePaddedToWholeVectors) {
  std::mt19937 rng(5);
  Graph g = ClassifierGraph(kClasses, rng);
  auto converted = ConvertLayout(g, 16);
  ASSERT_TRUE(converted.ok()) << converted.status();
  const std::string dump = converted->Dump();
  bool padded_weight = false, dropped = false;
  for (const graph::Node& n : converted->nodes()) {
    if (n.op == "ConvNCHWc" && n.name == "classes")
      padded_weight = converted->type(n.inputs[1]).shape == std::vector<int64_t>{5, 1, 1, 1, 16, 16};
    if (n.op == "LayoutTransform" && n.attrs.GetString("dst_layout") == "NCHW")
      dropped |= n.attrs.GetInt("channels") == 72 && converted->type(n.inputs[0]).shape[1] == 5;
  }
  EXPECT_TRUE(padded_weight) << "80 output channels in 5 blocks of 16\n" << dump;
  EXPECT_TRUE(dropped) << dump;
  EXPECT_EQ(Count(*converted, "MaxPoolNCHWc"), 1) << dump;
  EXPECT_EQ(Count(*converted, "GlobalAveragePoolNCHWc"), 1) << dump;
  for (const graph::Node& n : converted->nodes())
    if (n.op == "Add") {
      EXPECT_EQ(converted->type(n.inputs[0]).shape, (std::vector<int64_t>{1, 5, 6, 6, 16})) << dump;
      EXPECT_EQ(converted->type(n.inputs[1]).shape, (std::vector<int64_t>{5, 1, 1, 16})) << "padded param\n" << dump;
    }
  // At 8 lanes 72 = 9 blocks of 8: nothing to pad.
  auto at8 = ConvertLayout(g, 8);
  ASSERT_TRUE(at8.ok()) << at8.status();
  for (const graph::Node& n : at8->nodes())
    if (n.op == "ConvNCHWc" && n.name == "classes") {
      EXPECT_EQ(at8->type(n.inputs[1]).shape, (std::vector<int64_t>{9, 2, 1, 1, 8, 8})) << at8->Dump();
    }
}

// Projections to 72 channels at 16 lanes: 80 channels in five whole blocks, read by the next
// convs blocked (zero weights on the padding lanes; a depthwise conv computes the padding
// channels too), added lane by lane; only the graph output drops the padding. At 8 lanes,
// 72 = 9 blocks of 8 and nothing is padded.
TEST(LayoutPassTest, PaddedProjectionsAreReadBlockedByTheNextConvs) {
  std::mt19937 rng(6);
  Graph g = BottleneckGraph(kBottleneck, rng);
  auto converted = ConvertLayout(g, 16);
  ASSERT_TRUE(converted.ok()) << converted.status();
  const std::string dump = converted->Dump();
  std::map<std::string, std::vector<int64_t>> weight;
  for (const graph::Node& n : converted->nodes())
    if (n.op == "ConvNCHWc") weight[n.name] = converted->type(n.inputs[1]).shape;
  EXPECT_EQ(weight["project1"], (std::vector<int64_t>{5, 1, 1, 1, 16, 16})) << dump;
  EXPECT_EQ(weight["expand"], (std::vector<int64_t>{6, 5, 1, 1, 16, 16})) << "reads 80 channels\n" << dump;
  EXPECT_EQ(weight["project2"], (std::vector<int64_t>{5, 6, 1, 1, 16, 16})) << dump;
  EXPECT_EQ(weight["dw2"], (std::vector<int64_t>{5, 1, 3, 3, 1, 16})) << "80 depthwise channels\n" << dump;
  EXPECT_EQ(weight["expand2"], (std::vector<int64_t>{2, 5, 1, 1, 16, 16})) << dump;
  EXPECT_EQ(Count(*converted, "Conv"), 0) << dump;
  // Out of the region only at the two graph outputs; the sum drops its padding there.
  std::map<int64_t, std::vector<int64_t>> to_nchw;  // channels -> blocked shape read
  for (const graph::Node& n : converted->nodes())
    if (n.op == "LayoutTransform" && n.attrs.GetString("dst_layout") == "NCHW")
      to_nchw[n.attrs.GetInt("channels")] = converted->type(n.inputs[0]).shape;
  EXPECT_EQ(to_nchw.size(), 2u) << dump;
  EXPECT_EQ(to_nchw[72], (std::vector<int64_t>{1, 5, 8, 8, 16})) << dump;
  EXPECT_EQ(to_nchw[32], (std::vector<int64_t>{1, 2, 8, 8, 16})) << dump;
  auto at8 = ConvertLayout(g, 8);
  ASSERT_TRUE(at8.ok()) << at8.status();
  for (const graph::Node& n : at8->nodes())
    if (n.op == "ConvNCHWc" && n.name == "expand") {
      EXPECT_EQ(at8->type(n.inputs[1]).shape, (std::vector<int64_t>{12, 9, 1, 1, 8, 8})) << at8->Dump();
    }
}

// Padding lanes that a division could make inf never reach a conv: the Div leaves the region.
TEST(LayoutPassTest, ADivisionOfAPaddedValueReadsNchw) {
  std::mt19937 rng(8);
  Graph g;
  NodeEntry x = Input(g, "x", {1, 16, 4, 4});
  NodeEntry p = Conv(g, "project", x, 16, 72, 1, 1, rng);
  NodeEntry q = Op(g, "Div", "div", {p, Param(g, "div.c", RandomTensor({72, 1, 1}, rng))});
  g.AddOutput("y", Conv(g, "expand", q, 72, 32, 1, 1, rng));
  auto converted = ConvertLayout(g, 16);
  ASSERT_TRUE(converted.ok()) << converted.status();
  for (const graph::Node& n : converted->nodes())
    if (n.op == "Div") { EXPECT_EQ(converted->type(n.inputs[0]).shape.size(), 4u) << converted->Dump(); }
}

TEST(LayoutPassTest, MaxPoolWithIndicesStaysNchwAndBuilds) {
  std::mt19937 rng(4);
  Graph g;
  NodeEntry x = Input(g, "x", {1, 16, 10, 10});
  NodeEntry a = Op(g, "Relu", "relu1", {Conv(g, "conv1", x, 16, 16, 3, 1, rng)});
  Attrs window = Window({3, 3}, {2, 2}, {1, 1, 1, 1});
  window.Set("storage_order", int64_t{1});
  auto pool = g.AddNode("MaxPoolWithIndices", "pool", {a}, window);
  ASSERT_TRUE(pool.ok()) << pool.status();
  g.AddOutput("y", Conv(g, "conv2", (*pool)[0], 16, 16, 3, 1, rng));
  g.AddOutput("indices", (*pool)[1]);

  auto converted = ConvertLayout(g, 8);
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_EQ(Count(*converted, "ConvNCHWc"), 2) << converted->Dump();
  EXPECT_EQ(Count(*converted, "MaxPoolWithIndices"), 1);
  EXPECT_EQ(Count(*converted, "MaxPoolNCHWc"), 0);
  for (const graph::Node& n : converted->nodes())
    if (n.op == "MaxPoolWithIndices") { EXPECT_EQ(converted->type(n.inputs[0]).shape.size(), 4u) << converted->Dump(); }

  std::vector<float> input(1600);
  for (float& f : input) f = std::uniform_real_distribution<float>(-1, 1)(rng);
  std::vector<std::vector<double>> want = tunefarm::testing::EvaluateGraph(g, {{input.begin(), input.end()}});
  build::BuildOptions options;
  options.target = codegen::HostTarget();
  options.threads = 2;
  options.passes.layout_block = 8;
  auto plan = build::PlanModel(g, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Count(plan->graph, "MaxPoolWithIndices"), 1) << plan->graph.Dump();
  auto bytes = build::BuildArtifact(&*plan, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  std::vector<std::vector<float>> got = RunArtifact(*bytes, {input});
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(want.size(), 2u);
  ASSERT_EQ(got[0].size(), want[0].size());
  for (size_t i = 0; i < got[0].size(); ++i)
    ASSERT_NEAR(got[0][i], want[0][i], 1e-4 + 1e-4 * std::fabs(want[0][i])) << "y[" << i << "]";
  // The int64 Indices come back as raw bytes.
  std::vector<int64_t> indices(got[1].size() / 2);
  ASSERT_EQ(indices.size(), want[1].size());
  std::memcpy(indices.data(), got[1].data(), indices.size() * sizeof(int64_t));
  for (size_t i = 0; i < indices.size(); ++i) ASSERT_EQ(static_cast<double>(indices[i]), want[1][i]) << "indices[" << i << "]";
}

TEST_P(LayoutNumericsTest, MatchesTheNodeByNodeReference) {
  const Case& c = GetParam();
  std::mt19937 rng(11);
  Graph g = c.make(c.channels, rng);
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<double>> ref_inputs;
  for (const graph::Node& n : g.nodes()) {
    if (!n.IsInput()) continue;
    std::vector<float> v(n.outputs[0].NumElements());
    for (float& f : v) f = std::uniform_real_distribution<float>(-1, 1)(rng);
    inputs.push_back(v);
    ref_inputs.emplace_back(v.begin(), v.end());
  }
  std::vector<std::vector<double>> want = tunefarm::testing::EvaluateGraph(g, ref_inputs);

  build::BuildOptions options;
  options.target = codegen::HostTarget();
  options.threads = 2;
  options.passes.layout_block = c.block;
  auto plan = build::PlanModel(g, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Count(plan->graph, "Conv"), 0) << plan->graph.Dump();
  EXPECT_GT(Count(plan->graph, "ConvNCHWc") + Count(plan->graph, "WinogradInverse"), 0);
  if (c.channels.c >= 64 && c.channels.k >= 64) { EXPECT_GT(Count(plan->graph, "WinogradInverse"), 0) << plan->graph.Dump(); }
  auto bytes = build::BuildArtifact(&*plan, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  std::vector<std::vector<float>> got = RunArtifact(*bytes, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    ASSERT_EQ(got[o].size(), want[o].size());
    for (size_t i = 0; i < got[o].size(); ++i)
      ASSERT_NEAR(got[o][i], want[o][i], c.tolerance * (1 + std::fabs(want[o][i])))
          << g.output_names()[o] << "[" << i << "]\n" << plan->graph.Dump();
  }
}

const Channels kDivisible = {16, 32, 16, 16};
// Blocks at 8 / 16: 3 -> 3, 12 -> 4 / 12, 6 -> 6, 10 -> 5 / 10 (their concat 20 -> 5 / 10).
const Channels kRagged = {3, 12, 6, 10};

INSTANTIATE_TEST_SUITE_P(
    Graphs, LayoutNumericsTest,
    ::testing::Values(Case{"residual", ResidualGraph, kDivisible, 8}, Case{"residual", ResidualGraph, kDivisible, 16},
                      Case{"residual", ResidualGraph, kWide, 8, 1e-3}, Case{"residual", ResidualGraph, kWide, 16, 1e-3},
                      Case{"residual", ResidualGraph, kRagged, 8}, Case{"residual", ResidualGraph, kRagged, 16},
                      Case{"fire", FireGraph, kDivisible, 8}, Case{"fire", FireGraph, kDivisible, 16},
                      Case{"fire", FireGraph, kRagged, 8}, Case{"fire", FireGraph, kRagged, 16},
                      Case{"depthwise", DepthwiseGraph, kDivisible, 8}, Case{"depthwise", DepthwiseGraph, kDivisible, 16},
                      Case{"depthwise", DepthwiseGraph, kRagged, 8}, Case{"depthwise", DepthwiseGraph, kRagged, 16},
                      Case{"classifier", ClassifierGraph, kClasses, 8}, Case{"classifier", ClassifierGraph, kClasses, 16},
                      Case{"bottleneck", BottleneckGraph, kBottleneck, 8},
                      Case{"bottleneck", BottleneckGraph, kBottleneck, 16},
                      Case{"bottleneck", BottleneckGraph, kRagged, 8}, Case{"bottleneck", BottleneckGraph, kRagged, 16}),
    PrintCase);

}  // namespace
}  // namespace tunefarm::passes
