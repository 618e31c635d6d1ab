// Dense weight pre-transposition: Gemm(transB = 1) on a param B becomes Gemm(transB = 0) on
// B's transpose, computing the same values; shared weights are transposed once; Gemms with an
// untransposed or non-constant B are left alone.
#include "compiler/passes/dense_weights.h"

#include <gtest/gtest.h>

#include "compiler/passes/dce.h"
#include "tests/passes/test_graphs.h"

namespace tunefarm::passes::testing {
namespace {

// y = A · op(B) + C for float32 host tensors, op(B) = B^T when trans_b.
std::vector<double> NaiveGemm(const HostTensor& a, const HostTensor& b, const HostTensor& c, bool trans_b) {
  const int64_t m = a.shape[0], k = a.shape[1], n = trans_b ? b.shape[0] : b.shape[1];
  std::vector<double> y(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = c.GetDouble(j);
      for (int64_t p = 0; p < k; ++p) acc += a.GetDouble(i * k + p) * b.GetDouble(trans_b ? j * k + p : p * n + j);
      y[i * n + j] = acc;
    }
  return y;
}

TEST(DenseWeights, TransposedParamWeightsBecomePlainGemmsOnTheTranspose) {
  std::mt19937 rng(3);
  Graph g;
  NodeEntry x = Input(g, "x", {2, 3});
  HostTensor w = RandomTensor({4, 3}, rng), bias = RandomTensor({4}, rng);
  NodeEntry wp = Param(g, "fc.weight", w), bp = Param(g, "fc.bias", bias);
  Attrs trans;
  trans.Set("transB", int64_t{1});
  NodeEntry y1 = Op(g, "Gemm", "fc1", {x, wp, bp}, trans);
  NodeEntry y2 = Op(g, "Gemm", "fc2", {x, wp, bp}, trans);  // the same weight again
  NodeEntry sum = Op(g, "Add", "sum", {y1, y2});
  g.AddOutput("sum", sum);

  auto out = PretransposeDenseWeights(g);
  ASSERT_TRUE(out.ok()) << out.status();
  auto clean = EliminateDeadCode(*out);
  ASSERT_TRUE(clean.ok()) << clean.status();
  int gemms = 0;
  const HostTensor* wt = nullptr;
  for (const graph::Node& n : clean->nodes()) {
    if (n.IsParam() && n.name != "fc.bias") wt = &clean->params().at(n.name);
    if (n.op != "Gemm") continue;
    ++gemms;
    EXPECT_EQ(n.attrs.GetInt("transB"), 0) << n.name;
  }
  EXPECT_EQ(gemms, 2);
  ASSERT_NE(wt, nullptr);
  EXPECT_EQ(clean->params().count("fc.weight"), 0u) << "the [out, in] copy is dead";
  EXPECT_EQ(clean->params().size(), 2u) << "one transpose for the shared weight, and the bias";
  ASSERT_EQ(wt->shape, (std::vector<int64_t>{3, 4}));
  HostTensor a = RandomTensor({2, 3}, rng);
  EXPECT_EQ(NaiveGemm(a, *wt, bias, false), NaiveGemm(a, w, bias, true));
}

TEST(DenseWeights, LeavesOtherGemmsAlone) {
  std::mt19937 rng(4);
  Graph g;
  NodeEntry x = Input(g, "x", {2, 3});
  NodeEntry dynamic_b = Input(g, "b", {4, 3});
  NodeEntry plain_b = Param(g, "plain.weight", RandomTensor({3, 4}, rng));
  Attrs trans;
  trans.Set("transB", int64_t{1});
  NodeEntry y1 = Op(g, "Gemm", "dynamic", {x, dynamic_b}, trans);
  NodeEntry y2 = Op(g, "Gemm", "plain", {x, plain_b});
  g.AddOutput("y1", y1);
  g.AddOutput("y2", y2);
  auto out = PretransposeDenseWeights(g);
  ASSERT_TRUE(out.ok()) << out.status();
  for (const graph::Node& n : out->nodes()) {
    if (n.name == "dynamic") { EXPECT_EQ(n.attrs.GetInt("transB"), 1); }
    if (n.name == "plain") { EXPECT_EQ(n.attrs.GetInt("transB", 0), 0); }
  }
  EXPECT_EQ(out->params().size(), 1u);
}

}  // namespace
}  // namespace tunefarm::passes::testing
