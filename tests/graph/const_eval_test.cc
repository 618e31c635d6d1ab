// Constant evaluation runs the op's own TE compute (node_interpreter.h): ops the old hand-written
// evaluator never knew fold, values match the kernel's arithmetic (float32 in float32, integer
// division by zero), and what cannot or should not be interpreted stays in the graph.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/graph/const_eval.h"
#include "common/strings.h"
#include "compiler/graph/node_interpreter.h"

namespace tunefarm::graph {
namespace {

using te::DType;

// A one-op graph over inputs of `types`; returns the op's node.
const Node& OneNode(Graph& g, const std::string& op, const std::vector<TensorType>& types, Attrs attrs = {}) {
  std::vector<NodeEntry> inputs;
  for (size_t i = 0; i < types.size(); ++i) inputs.push_back(*g.AddInput(StrCat("x", i), types[i]));
  auto out = g.AddNode(op, "n", inputs, std::move(attrs));
  EXPECT_TRUE(out.ok()) << out.status();
  return g.node(out->at(0).node);
}

TEST(ConstEval, FoldsOpsThroughTheirCompute) {
  Graph g;
  Attrs axes;
  axes.Set("axes", std::vector<int64_t>{1});
  axes.Set("keepdims", int64_t{0});
  const Node& sum = OneNode(g, "ReduceSum", {{DType::kFloat32, {2, 3}}}, axes);
  HostTensor x = HostTensor::FromFloats({1, 2, 3, 4, 5, 6.5f}, {2, 3});
  auto r = EvaluateConstant(sum, {&x});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_value()) << "ReduceSum has a compute, so it folds";
  EXPECT_EQ((**r)[0].shape, (std::vector<int64_t>{2}));
  EXPECT_EQ((**r)[0].GetDouble(0), 6);
  EXPECT_EQ((**r)[0].GetDouble(1), 15.5);

  // Float32 arithmetic, as the kernel does it: 1 + 2^-30 is 1 in float32 (it was not in the
  // double arithmetic of the old evaluator).
  Graph g2;
  const Node& add = OneNode(g2, "Add", {{DType::kFloat32, {1}}, {DType::kFloat32, {1}}});
  HostTensor one = HostTensor::FromFloats({1}, {1}), tiny = HostTensor::FromFloats({std::ldexp(1.0f, -30)}, {1});
  auto s = EvaluateConstant(add, {&one, &tiny});
  ASSERT_TRUE(s.ok() && s->has_value());
  EXPECT_EQ((**s)[0].GetDouble(0), 1.0);
}

TEST(ConstEval, IntegerDivisionByZeroFoldsAsTheKernelComputesIt) {
  // The kernels never trap: an integer divided by 0 is itself (ops/binary.cc). Folding must give
  // the same, not an error the compiled model would not have.
  Graph g;
  const Node& div = OneNode(g, "Div", {{DType::kInt64, {3}}, {DType::kInt64, {3}}});
  HostTensor a = HostTensor::FromInt64s({7, 5, -7}, {3}), b = HostTensor::FromInt64s({2, 0, 2}, {3});
  auto r = EvaluateConstant(div, {&a, &b});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((**r)[0].ToInt64s(), (std::vector<int64_t>{3, 5, -3}));
}

TEST(ConstEval, WhatCannotBeInterpretedStaysInTheGraph) {
  // Mod has no compute for bools (inference lets them through): left to the kernels, which
  // report it.
  Graph g;
  const Node& mod = OneNode(g, "Mod", {{DType::kBool, {2}}, {DType::kBool, {2}}});
  auto bits = HostTensor::Zeros(DType::kBool, {2});
  ASSERT_TRUE(bits.ok());
  auto r = EvaluateConstant(mod, {&*bits, &*bits});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->has_value());

  // Too much work for the interpreter, though the output is small: a 64x64 MatMul reducing over
  // 2^15 is 2^27 multiply-adds.
  Graph g2;
  const Node& mm = OneNode(g2, "MatMul", {{DType::kFloat32, {64, 1 << 15}}, {DType::kFloat32, {1 << 15, 64}}});
  auto a = HostTensor::Zeros(DType::kFloat32, {64, 1 << 15}), b = HostTensor::Zeros(DType::kFloat32, {1 << 15, 64});
  ASSERT_TRUE(a.ok() && b.ok());
  auto direct = InterpretNode(mm, {&*a, &*b});
  EXPECT_EQ(direct.status().code(), absl::StatusCode::kResourceExhausted) << direct.status();
  auto folded = EvaluateConstant(mm, {&*a, &*b}, int64_t{1} << 20);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_FALSE(folded->has_value());

  // An output over the caller's limit is not evaluated at all.
  Graph g3;
  const Node& neg = OneNode(g3, "Neg", {{DType::kFloat32, {8}}});
  HostTensor eight = HostTensor::FromFloats({1, 2, 3, 4, 5, 6, 7, 8}, {8});
  auto limited = EvaluateConstant(neg, {&eight}, 4);
  ASSERT_TRUE(limited.ok());
  EXPECT_FALSE(limited->has_value());
}

}  // namespace
}  // namespace tunefarm::graph
