// Every op family under its default schedule, alone and fused with an epilogue (activation and
// residual add), against the plain evaluation of the same DAG. (The ops themselves are checked
// against hand-written references in tests/ops; this checks what the rules do to them.)
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "compiler/ops/binary.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/conv_transpose.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/gather.h"
#include "compiler/ops/layout.h"
#include "compiler/ops/matmul.h"
#include "compiler/ops/normalization.h"
#include "compiler/ops/op_common.h"
#include "compiler/ops/pad.h"
#include "compiler/ops/pooling.h"
#include "compiler/ops/reduce.h"
#include "compiler/ops/transform.h"
#include "compiler/ops/unary.h"
#include "compiler/schedule/default_rules.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/common/dag_evaluator.h"
#include "tests/common/test_dags.h"

namespace tunefarm::testing {
namespace {

using ops::OrDie;
using te::DagBuilder;
using te::DType;
using Tensor = DagBuilder::Tensor;

struct OpCase {
  std::string name;
  // Builds the op on fresh placeholders and returns its output.
  std::function<Tensor(DagBuilder&)> build;
};

Tensor In(DagBuilder& b, std::vector<int64_t> shape, std::string name = "x") {
  return b.Placeholder(std::move(name), DType::kFloat32, std::move(shape));
}

std::vector<OpCase> Cases() {
  return {
      {"batch_matmul", [](DagBuilder& b) { return OrDie(ops::BatchMatmul(b, In(b, {2, 5, 7}), In(b, {2, 7, 6}, "w"), {})); }},
      {"matmul_transposed",
       [](DagBuilder& b) { return OrDie(ops::BatchMatmul(b, In(b, {9, 13}), In(b, {11, 13}, "w"), {false, true})); }},
      {"dense", [](DagBuilder& b) { return OrDie(ops::Dense(b, In(b, {3, 17}), In(b, {9, 17}, "w"), In(b, {9}, "bias"))); }},
      {"conv2d_groups_dilation",
       [](DagBuilder& b) {
         ops::Conv2dParams p;
         p.padding = {2, 1, 2, 1};
         p.dilation = {2, 1};
         p.groups = 2;
         return OrDie(ops::Conv2d(b, In(b, {1, 4, 9, 7}), In(b, {6, 2, 3, 3}, "w"), p));
       }},
      {"depthwise_conv2d",
       [](DagBuilder& b) {
         ops::Conv2dParams p;
         p.stride = {2, 2};
         p.padding = {1, 1, 1, 1};
         p.groups = 3;
         return OrDie(ops::Conv2d(b, In(b, {1, 3, 11, 10}), In(b, {3, 1, 3, 3}, "w"), p));
       }},
      {"conv2d_nchwc",
       [](DagBuilder& b) {
         ops::Conv2dParams p;
         p.padding = {1, 1, 1, 1};
         auto w = OrDie(ops::PackConv2dWeight(b, In(b, {8, 8, 3, 3}, "w"), 4, 4));
         return OrDie(ops::Conv2dNchwc(b, In(b, {1, 2, 6, 7, 4}), w, p));
       }},
      {"conv_transpose2d",
       [](DagBuilder& b) {
         ops::ConvTransposeParams p;
         p.stride = {2, 2};
         p.padding = {1, 1, 1, 1};
         return OrDie(ops::ConvTranspose(b, In(b, {1, 3, 5, 4}), In(b, {3, 2, 3, 3}, "w"), p));
       }},
      {"max_pool3d_ceil",
       [](DagBuilder& b) {
         ops::PoolParams p;
         p.kernel = {2, 3, 3};
         p.stride = {2, 2, 2};
         p.ceil_mode = true;
         return OrDie(ops::Pool(b, In(b, {1, 2, 5, 7, 6}), p));
       }},
      {"avg_pool2d_pad",
       [](DagBuilder& b) {
         ops::PoolParams p;
         p.kind = ops::PoolKind::kAvg;
         p.kernel = {3, 3};
         p.stride = {2, 2};
         p.padding = {1, 1, 1, 1};
         return OrDie(ops::Pool(b, In(b, {1, 3, 9, 8}), p));
       }},
      {"global_avg_pool", [](DagBuilder& b) { return OrDie(ops::GlobalPool(b, In(b, {2, 5, 7, 6}), ops::PoolKind::kAvg)); }},
      {"gelu", [](DagBuilder& b) { return OrDie(ops::Unary(b, In(b, {5, 37}), {ops::UnaryOp::kGelu})); }},
      {"broadcast_mul",
       [](DagBuilder& b) { return OrDie(ops::Binary(b, In(b, {4, 1, 9}), In(b, {3, 1}, "y"), ops::BinaryOp::kMul)); }},
      {"clip", [](DagBuilder& b) { return OrDie(ops::Clip(b, In(b, {7, 13}), {-0.5, 0.25})); }},
      {"batch_norm",
       [](DagBuilder& b) {
         return OrDie(ops::BatchNormInference(b, In(b, {2, 3, 5, 4}), In(b, {3}, "g"), In(b, {3}, "be"), In(b, {3}, "m"),
                                              b.Placeholder("v", DType::kFloat32, {3}), {}));
       }},
      {"softmax_axis1", [](DagBuilder& b) { return OrDie(ops::Softmax(b, In(b, {3, 11, 4}), ops::SoftmaxParams{1})); }},
      {"log_softmax", [](DagBuilder& b) { return OrDie(ops::LogSoftmax(b, In(b, {6, 19}), {})); }},
      {"layer_norm",
       [](DagBuilder& b) { return OrDie(ops::LayerNorm(b, In(b, {5, 24}), In(b, {24}, "g"), In(b, {24}, "be"), {})); }},
      {"reduce_mean", [](DagBuilder& b) { return OrDie(ops::Reduce(b, In(b, {4, 5, 6}), {ops::ReduceOp::kMean, {0, 2}})); }},
      {"transpose", [](DagBuilder& b) { return OrDie(ops::Transpose(b, In(b, {3, 5, 7}), {{2, 0, 1}})); }},
      {"reshape", [](DagBuilder& b) { return OrDie(ops::Reshape(b, In(b, {6, 10}), {{3, -1, 4}})); }},
      {"concat", [](DagBuilder& b) { return OrDie(ops::Concat(b, {In(b, {3, 5}), In(b, {3, 2}, "y")}, 1)); }},
      {"pad_reflect",
       [](DagBuilder& b) { return OrDie(ops::Pad(b, In(b, {5, 6}), {ops::PadMode::kReflect, {1, 2, 2, 1}})); }},
      {"slice_negative_step",
       [](DagBuilder& b) { return OrDie(ops::Slice(b, In(b, {7, 9}), {{6, 1}, {0, 8}, {0, 1}, {-2, 3}})); }},
      {"gather",
       [](DagBuilder& b) {
         auto idx = b.Placeholder("idx", DType::kInt64, {4});
         return OrDie(ops::Gather(b, In(b, {6, 5}), idx, {0}));
       }},
      {"layout_roundtrip",
       [](DagBuilder& b) { return OrDie(ops::NchwcToNchw(b, OrDie(ops::NchwToNchwc(b, In(b, {1, 6, 4, 5}), 4)), 6)); }},
  };
}

// Inputs: floats in [-1, 1); integer inputs (gather indices) in range.
std::vector<std::vector<double>> MakeInputs(const te::ComputeDag& dag) {
  std::vector<std::vector<double>> in;
  for (size_t i = 0; i < dag.inputs().size(); ++i) {
    const te::TensorDef& t = dag.tensor(dag.inputs()[i]);
    auto f = RandomFloats(t.NumElements(), 77 + i);
    std::vector<double> v(f.begin(), f.end());
    if (!te::IsFloat(t.dtype))
      for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(k % 3);
    if (t.name == "v")  // a variance: positive
      for (double& x : v) x = std::fabs(x) + 0.1;
    in.push_back(std::move(v));
  }
  return in;
}

// Lowers and runs the default schedule; returns the worst relative error vs the evaluation.
double Check(const std::shared_ptr<const te::ComputeDag>& dag, bool compile, std::string* detail) {
  auto state = schedule::ApplyDefaultSchedule(dag, {8, 3});
  if (!state.ok()) return *detail = std::string(state.status().message()), 1e30;
  *detail = state->ToString();
  auto f = tir::Lower(*state, "kernel");
  if (!f.ok()) return *detail += std::string(f.status().message()), 1e30;
  auto inputs = MakeInputs(*dag);
  auto ref = DagEvaluator(*dag).Run(inputs);
  // Raw byte buffers of each argument's dtype.
  std::vector<codegen::testing::Array<double>> storage;
  std::vector<void*> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const te::TensorDef& t = dag->tensor(dag->inputs()[i]);
    storage.emplace_back(t.NumElements() + 1);
    for (size_t k = 0; k < inputs[i].size(); ++k) {
      if (t.dtype == DType::kInt64) {
        reinterpret_cast<int64_t*>(storage.back().data())[k] = static_cast<int64_t>(inputs[i][k]);
      } else {
        reinterpret_cast<float*>(storage.back().data())[k] = static_cast<float>(inputs[i][k]);
      }
    }
    args.push_back(storage.back().data());
  }
  const te::TensorDef& out = dag->tensor(dag->outputs()[0]);
  storage.emplace_back(out.NumElements() + 1);
  float* result = reinterpret_cast<float*>(storage.back().data());
  args.push_back(result);
  double worst = 0;
  auto compare = [&] {
    for (int64_t k = 0; k < out.NumElements(); ++k) {
      double err = std::fabs(result[k] - ref[0][k]) / (1 + std::fabs(ref[0][k]));
      worst = std::max(worst, std::isnan(err) ? 1e30 : err);
    }
  };
  std::fill(result, result + out.NumElements(), NAN);
  if (auto s = tir::Interpret(*f, args); !s.ok()) return *detail += std::string(s.message()), 1e30;
  compare();
  if (compile) {
    auto runner = codegen::testing::KernelRunner::Create({*f}, codegen::testing::Backend::kSharedObject);
    for (int threads : {1, 3}) {
      std::fill(result, result + out.NumElements(), NAN);
      if (runner->Run("kernel", args, threads) != 0) return 1e30;
      compare();
    }
  }
  return worst;
}

TEST(DefaultRulesOps, EveryOpAloneAndWithAnEpilogue) {
  int index = 0;
  for (const OpCase& c : Cases()) {
    for (bool epilogue : {false, true}) {
      DagBuilder b;
      Tensor out = c.build(b);
      if (epilogue) {  // relu(op) + residual, the pattern graph fusion produces
        Tensor act = OrDie(ops::Unary(b, out, {ops::UnaryOp::kRelu}, "act"));
        Tensor residual = b.Placeholder("residual", DType::kFloat32, out.shape);
        out = OrDie(ops::Binary(b, act, residual, ops::BinaryOp::kAdd, "residual_add"));
      }
      auto dag = b.Build({out});
      std::string detail;
      bool compile = index++ % 3 == 0;
      EXPECT_LT(Check(dag, compile, &detail), 1e-4) << c.name << (epilogue ? " + epilogue" : "") << "\n" << detail;
    }
  }
}

}  // namespace
}  // namespace tunefarm::testing
