// Graph IR and op registry: building, inference, errors, dump.
#include <gtest/gtest.h>

#include "compiler/graph/graph.h"
#include "compiler/graph/op_registry.h"

namespace tunefarm::graph {
namespace {

TEST(GraphTest, ConvReluInfersShapesAndDumps) {
  Graph g;
  auto x = g.AddInput("x", {te::DType::kFloat32, {1, 3, 8, 8}});
  ASSERT_TRUE(x.ok());
  auto w = g.AddParam("w", *HostTensor::Zeros(te::DType::kFloat32, {4, 3, 3, 3}));
  ASSERT_TRUE(w.ok());
  Attrs a;
  a.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.Set("strides", std::vector<int64_t>{2, 2});
  auto conv = g.AddNode("Conv", "conv", {*x, *w}, a);
  ASSERT_TRUE(conv.ok()) << conv.status();
  EXPECT_EQ(g.type((*conv)[0]).ToString(), "float32[1,4,4,4]");
  auto relu = g.AddNode("Relu", "", {(*conv)[0]}, {});
  ASSERT_TRUE(relu.ok());
  g.AddOutput("y", (*relu)[0]);
  EXPECT_TRUE(g.Verify().ok());
  std::string dump = g.Dump();
  EXPECT_NE(dump.find("%2 = Conv(%0, %1) {dilations=[], group=1"), std::string::npos) << dump;
  EXPECT_NE(dump.find("Relu(%2) -> float32[1,4,4,4]"), std::string::npos) << dump;
  EXPECT_EQ(g.OpCounts().at("Conv"), 1);
}

TEST(GraphTest, ErrorsNameNodeOpAndReason) {
  Graph g;
  auto x = g.AddInput("x", {te::DType::kFloat32, {2, 3}});
  auto y = g.AddInput("y", {te::DType::kFloat32, {4, 5}});
  auto bad = g.AddNode("MatMul", "mm", {*x, *y}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()), "node 'mm' (op MatMul): inner dims differ: float32[2,3] x float32[4,5]");
  auto unknown = g.AddNode("Frobnicate", "f", {*x}, {});
  EXPECT_EQ(std::string(unknown.status().message()), "node 'f' (op Frobnicate): unknown op");
  Attrs a;
  a.Set("bogus", int64_t{1});
  auto attr = g.AddNode("Relu", "r", {*x}, a);
  EXPECT_EQ(std::string(attr.status().message()), "node 'r' (op Relu): unsupported attribute 'bogus'");
  auto missing = g.AddNode("Reshape", "rs", {*x}, {});
  EXPECT_EQ(std::string(missing.status().message()), "node 'rs' (op Reshape): missing required attribute 'shape'");
}

// The Winograd ops are built by the layout pass, never by a model file; their inference still
// names what is wrong with a node made by hand.
TEST(GraphTest, WinogradOpsInferTheirShapesAndNameBadOperands) {
  Graph g;
  auto x = g.AddInput("x", {te::DType::kFloat32, {1, 2, 10, 10, 8}});  // 16 channels in blocks of 8
  auto message = [](const absl::StatusOr<std::vector<NodeEntry>>& r) {
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  Attrs pack;
  pack.Set("tile", int64_t{4});
  pack.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  auto v = g.AddNode("WinogradDataPack", "pack", {*x}, pack);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(g.type((*v)[0]).ToString(), "float32[2,9,6,6,8]");  // 3x3 tiles of 4 over 10x10
  Attrs negative = pack;
  negative.Set("pads", std::vector<int64_t>{1, -1, 1, 1});
  EXPECT_EQ(message(g.AddNode("WinogradDataPack", "p2", {*x}, negative)),
            "node 'p2' (op WinogradDataPack): pads must be >= 0");
  Attrs tile3 = pack;
  tile3.Set("tile", int64_t{3});
  EXPECT_EQ(message(g.AddNode("WinogradDataPack", "p3", {*x}, tile3)),
            "node 'p3' (op WinogradDataPack): tile must be 2 or 4, got 3");

  auto u = g.AddParam("u", *HostTensor::Zeros(te::DType::kFloat32, {6, 6, 4, 2, 8, 8}));  // K = 32
  auto m = g.AddNode("WinogradBatchGemm", "gemm", {(*v)[0], *u}, {});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(g.type((*m)[0]).ToString(), "float32[6,6,4,9,8]");
  auto u64 = g.AddParam("u64", *HostTensor::Zeros(te::DType::kFloat64, {6, 6, 4, 2, 8, 8}));
  EXPECT_EQ(message(g.AddNode("WinogradBatchGemm", "g2", {(*v)[0], *u64}, {})),
            "node 'g2' (op WinogradBatchGemm): V and the weight have different dtypes");
  auto u_wrong = g.AddParam("u_wrong", *HostTensor::Zeros(te::DType::kFloat32, {6, 6, 4, 3, 8, 8}));
  EXPECT_NE(message(g.AddNode("WinogradBatchGemm", "g3", {(*v)[0], *u_wrong}, {})).find("does not fit V"),
            std::string::npos);

  Attrs inverse;
  inverse.Set("tile", int64_t{4});
  inverse.Set("batch", int64_t{1});
  inverse.Set("output_height", int64_t{10});
  inverse.Set("output_width", int64_t{10});
  auto y = g.AddNode("WinogradInverse", "inverse", {(*m)[0]}, inverse);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(g.type((*y)[0]).ToString(), "float32[1,4,10,10,8]");
  Attrs too_big = inverse;
  too_big.Set("output_height", int64_t{13});  // 4 rows of tiles, M holds 3
  EXPECT_EQ(message(g.AddNode("WinogradInverse", "i2", {(*m)[0]}, too_big)),
            "node 'i2' (op WinogradInverse): M float32[6,6,4,9,8] does not hold the tiles of 1x13x10");
  auto bias = g.AddParam("bias", *HostTensor::Zeros(te::DType::kFloat32, {4, 1, 1, 4}));
  EXPECT_EQ(message(g.AddNode("WinogradInverse", "i3", {(*m)[0], *bias}, inverse)),
            "node 'i3' (op WinogradInverse): bias must be [4,1,1,8], got float32[4,1,1,4]");
}

TEST(GraphTest, ShapeHelpers) {
  EXPECT_EQ(*BroadcastShapes({3, 1, 5}, {4, 1}), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_FALSE(BroadcastShapes({3}, {4}).ok());
  EXPECT_EQ(*ResolveReshape({2, 3, 4}, {0, -1}), (std::vector<int64_t>{2, 12}));
  EXPECT_FALSE(ResolveReshape({2, 3, 4}, {5, -1}).ok());
  auto s = ResolveSlice({10}, {-3}, {INT64_MAX}, {}, {});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)[0].start, 7);
  EXPECT_EQ((*s)[0].count, 3);
  auto r = ResolveSlice({10}, {-1}, {INT64_MIN}, {0}, {-2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].start, 9);
  EXPECT_EQ((*r)[0].count, 5);
  EXPECT_FALSE(CheckedNumElements({int64_t{1} << 40, int64_t{1} << 40}).ok());
}

TEST(GraphTest, RegistryHasPatterns) {
  const OpRegistry& r = OpRegistry::Global();
  EXPECT_EQ(r.Find("Relu")->pattern, OpPattern::kElementwise);
  EXPECT_EQ(r.Find("Add")->pattern, OpPattern::kBroadcast);
  EXPECT_EQ(r.Find("Reshape")->pattern, OpPattern::kInjective);
  EXPECT_EQ(r.Find("ReduceMean")->pattern, OpPattern::kReduction);
  EXPECT_EQ(r.Find("Conv")->pattern, OpPattern::kOutElementwiseFusable);
  EXPECT_EQ(r.Find("Softmax")->pattern, OpPattern::kOpaque);
  std::string names;
  for (const auto& n : r.Names()) names += n + " ";
  std::printf("registry (%zu ops): %s\n", r.Names().size(), names.c_str());
}

}  // namespace
}  // namespace tunefarm::graph
