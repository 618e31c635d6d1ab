#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compiler/te/compute_dag.h"
#include "compiler/te/dag_text.h"
#include "compiler/te/expr_text.h"
#include "tests/common/test_dags.h"

namespace tunefarm::te {
namespace {

TEST(ExprText, RoundTripsEveryKindExactly) {
  Expr x = Load(DType::kFloat32, 0, {Axis(0) * 3 + ReduceAxis(1) % 5});
  Expr e = Select(Lt(x, FloatImm(DType::kFloat32, 0.1)), Exp(x) / Sqrt(x) - Tanh(x),
                  Pow(Max(x, FloatImm(DType::kFloat32, -INFINITY)), Erf(Cast(DType::kFloat32, Axis(1)))));
  std::string text = ExprToText(e);
  auto parsed = ParseExprText(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(StructurallyEqual(e, *parsed));
  EXPECT_EQ(ExprToText(*parsed), text);
  // 0.1f is not a short decimal: the hex form keeps every bit.
  EXPECT_NE(text.find("0x1.99999ap-4"), std::string::npos) << text;
}

TEST(ExprText, RejectsMalformedText) {
  const char* bad[] = {
      "",
      "(add float32 (int int64 1))",                           // arity
      "(add float32 (int int64 1) (int int64 2))",             // dtype mismatch
      "(frobnicate float32)",                                  // unknown kind
      "(int float8 3)",                                         // unknown dtype
      "(int float16 3)",                                        // integer immediate of a float
      "(float int32 0x1p+0)",                                   // float immediate of an integer
      "(add bfloat16 (var bfloat16 1 x) (var bfloat16 2 y))",   // arithmetic on a storage float
      "(lt bool (var float16 1 x) (var float16 2 y))",          // comparison of storage floats
      "(call float32 cosh (float float32 0x1p+0))",            // unknown intrinsic
      "(mod float32 (float float32 0x1p+0) (float float32 0x1p+0))",  // float modulo
      "(int int64 3) trailing",
      "(int int64 3",
  };
  for (const char* text : bad) EXPECT_FALSE(ParseExprText(text).ok()) << text;
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "(not bool ";
  EXPECT_FALSE(ParseExprText(deep).ok());  // an error, not a stack overflow
}

TEST(DagText, RoundTripsToTheSameKey) {
  for (auto dag : {testing::GemmBiasDag(64, 48, 32), testing::ElementwiseChainDag(7, 9)}) {
    auto parsed = ComputeDag::Parse(dag->CanonicalText());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ((*parsed)->CanonicalText(), dag->CanonicalText());
    EXPECT_EQ((*parsed)->WorkloadKey(), dag->WorkloadKey());
  }
}

TEST(DagText, KeyIgnoresNamesButNotShapes) {
  DagBuilder b1, b2;
  auto x1 = b1.Placeholder("x", DType::kFloat32, {4, 4});
  auto y1 = b1.Compute("relu", {4, 4}, [&](const DagBuilder::Axes& i) { return Max(x1(i), Const(DType::kFloat32, 0)); });
  auto x2 = b2.Placeholder("input", DType::kFloat32, {4, 4});
  auto y2 = b2.Compute("other", {4, 4}, [&](const DagBuilder::Axes& i) { return Max(x2(i), Const(DType::kFloat32, 0)); });
  EXPECT_EQ(b1.Build({y1})->WorkloadKey(), b2.Build({y2})->WorkloadKey());
  EXPECT_NE(testing::GemmBiasDag(64, 48, 32)->WorkloadKey(), testing::GemmBiasDag(64, 48, 33)->WorkloadKey());
}

// Golden keys: these change only when the canonical text format changes, which invalidates
// every tuning record in every database. If this fails, bump the format version on purpose.
TEST(DagText, GoldenWorkloadKeys) {
  EXPECT_EQ(testing::GemmBiasDag(64, 48, 32)->WorkloadKey(),
            "tfdag1-f17d929786f3ed99e4e37ae01d2f718404d93ab7bef7057ec6ac4a3b16e844e7");
  EXPECT_EQ(testing::ElementwiseChainDag(7, 9)->WorkloadKey(),
            "tfdag1-08524fef8a577f0ab8915cd597cae2568fedc2add897eb569bbe81ff8670befe");
  EXPECT_EQ(testing::GemmBiasDag(64, 48, 32)->CanonicalText(),
            "tunefarm-dag 1\n"
            "t0 placeholder float32 [64,32] input\n"
            "t1 placeholder float32 [32,48] constant\n"
            "t2 placeholder float32 [48] constant\n"
            "t3 compute float32 [64,48] sum [32] (mul float32 (load float32 0 (axis int64 0) (raxis int64 0)) "
            "(load float32 1 (raxis int64 0) (axis int64 1)))\n"
            "t4 compute float32 [64,48] none (add float32 (load float32 3 (axis int64 0) (axis int64 1)) "
            "(load float32 2 (axis int64 1)))\n"
            "outputs t4\n");
}

TEST(DagText, RejectsMalformedDags) {
  std::string good = testing::GemmBiasDag(8, 8, 8)->CanonicalText();
  auto replace = [&](std::string from, std::string to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  struct Case {
    std::string text, message;
  } cases[] = {
      {"nonsense", "must start with"},
      {replace("outputs t4", ""), "outputs"},
      {replace("outputs t4", "outputs t9"), "bad tensor reference"},
      {replace("outputs t4", "outputs t0"), "placeholder cannot be an output"},
      {replace("(load float32 3", "(load float32 4"), "unknown tensor"},
      {replace("(load float32 2 (axis int64 1))", "(load float32 2 (axis int64 1) (axis int64 0))"), "wrong index count"},
      {replace("[8,8] input", "[8,-8] input"), "bad dimension"},
      {replace("float32 [8,8] input", "float8 [8,8] input"), "unknown dtype"},
      {replace("(axis int64 1)))\nt4", "(axis int64 7)))\nt4"), "axis out of range"},
  };
  for (const Case& c : cases) {
    auto dag = ComputeDag::Parse(c.text);
    ASSERT_FALSE(dag.ok()) << c.text;
    EXPECT_NE(std::string(dag.status().message()).find(c.message), std::string::npos) << dag.status();
  }
}

TEST(AccessAnalysis, GemmAndChain) {
  auto gemm = testing::GemmBiasDag(64, 48, 32);
  const StageAnalysis& c = gemm->analysis(3);
  EXPECT_TRUE(c.has_reduction);
  EXPECT_TRUE(c.needs_multi_level_tiling);
  EXPECT_FALSE(c.is_output);
  EXPECT_FALSE(c.strictly_inlinable);
  EXPECT_EQ(c.reads.size(), 2u);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 64 * 48 * 32);
  const StageAnalysis& out = gemm->analysis(4);
  EXPECT_TRUE(out.is_output);
  EXPECT_FALSE(out.needs_multi_level_tiling);
  EXPECT_DOUBLE_EQ(out.flops, 64.0 * 48);
  EXPECT_EQ(gemm->consumers(3), std::vector<int>{4});

  auto chain = testing::ElementwiseChainDag(7, 9);
  EXPECT_TRUE(chain->analysis(2).strictly_inlinable);
  EXPECT_TRUE(chain->analysis(3).strictly_inlinable);
  EXPECT_FALSE(chain->analysis(4).strictly_inlinable);  // the output
  EXPECT_DOUBLE_EQ(chain->TotalFlops(), 3.0 * 7 * 9);

  DagBuilder b;
  auto x = b.Placeholder("x", DType::kFloat32, {4, 8});
  auto e = b.Compute("e", {4, 8}, [&](const DagBuilder::Axes& i) { return Exp(x(i)); });
  auto s = b.Reduce("s", ReduceKind::kSum, {4}, {8}, [&](const DagBuilder::Axes& i, const DagBuilder::Axes& r) {
    return e(i[0], r[0]);
  });
  auto dag = b.Build({s});
  EXPECT_FALSE(dag->analysis(1).strictly_inlinable);  // exp is expensive to recompute
  EXPECT_TRUE(dag->analysis(2).has_reduction);
  EXPECT_FALSE(dag->analysis(2).needs_multi_level_tiling);  // a row sum has no reuse
}

}  // namespace
}  // namespace tunefarm::te
