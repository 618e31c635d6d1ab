// A representative subset of the ops compiled by the LLVM code generator into a .so (loaded by
// the deploy runtime) must agree with the loop-IR interpreter, which the other tests check
// against plain references. Math intrinsics are polynomials in generated code, hence the
// float tolerance; data movement and integer ops must agree exactly.
#include "compiler/ops/binary.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/conv_transpose.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/gather.h"
#include "compiler/ops/layout.h"
#include "compiler/ops/matmul.h"
#include "compiler/ops/normalization.h"
#include "compiler/ops/pad.h"
#include "compiler/ops/pooling.h"
#include "compiler/ops/reduce.h"
#include "compiler/ops/transform.h"
#include "compiler/ops/unary.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

using In = const std::vector<Tensor>&;

struct Case {
  std::string name;
  std::vector<HostTensor> inputs;
  OpFn op;
  double tol = 0;  // atol and rtol
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, std::vector<HostTensor> inputs, OpFn op, double tol = 0) {
    cases.push_back({std::move(name), std::move(inputs), std::move(op), tol});
  };
  const DType f32 = DType::kFloat32;
  add("conv2d_grouped_padded", {Random(f32, {1, 4, 7, 6}, 1), Random(f32, {6, 2, 3, 3}, 2)},
      [](DagBuilder& b, In in) { return Conv2d(b, in[0], in[1], Conv2dParams{{2, 1}, {1, 1, 0, 1}, {1, 2}, 2}); }, 1e-5);
  add("conv2d_nchwc_chain", {Random(f32, {1, 6, 5, 5}, 3), Random(f32, {5, 6, 3, 3}, 4)},
      [](DagBuilder& b, In in) -> absl::StatusOr<Tensor> {
        auto conv = Conv2dNchwc(b, *NchwToNchwc(b, in[0], 4), *PackConv2dWeight(b, in[1], 4, 4),
                                Conv2dParams{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1});
        if (!conv.ok()) return conv.status();
        return NchwcToNchw(b, *conv, 5);
      }, 1e-5);
  add("conv2d_nchwc_depthwise", {Random(f32, {1, 2, 6, 6, 4}, 5), Random(f32, {2, 1, 3, 3, 1, 4}, 6)},
      [](DagBuilder& b, In in) { return Conv2dNchwc(b, in[0], in[1], Conv2dParams{{1, 1}, {1, 1, 1, 1}, {1, 1}, 8}); }, 1e-5);
  add("conv_transpose_2d", {Random(f32, {1, 4, 4, 3}, 7), Random(f32, {4, 3, 3, 2}, 8)},
      [](DagBuilder& b, In in) { return ConvTranspose(b, in[0], in[1], ConvTransposeParams{{2, 2}, {1, 0, 1, 1}, {1, 0}, {1, 1}, 1}); }, 1e-5);
  add("batch_matmul_transposed", {Random(f32, {2, 1, 7, 5}, 9), Random(f32, {3, 6, 7}, 10)},
      [](DagBuilder& b, In in) { return BatchMatmul(b, in[0], in[1], MatmulParams{true, true}); }, 1e-5);
  add("dense_bias_int64", {Random(DType::kInt64, {3, 9}, 11, -50, 50), Random(DType::kInt64, {5, 9}, 12, -50, 50),
                           Random(DType::kInt64, {5}, 13, -50, 50)},
      [](DagBuilder& b, In in) { return Dense(b, in[0], in[1], in[2]); });
  add("avg_pool_ceil", {Random(f32, {1, 2, 7, 8}, 14)}, [](DagBuilder& b, In in) {
    PoolParams p;
    p.kind = PoolKind::kAvg, p.kernel = {3, 2}, p.stride = {2, 3}, p.padding = {1, 0, 1, 1}, p.ceil_mode = true;
    return Pool(b, in[0], p);
  }, 1e-6);
  add("max_pool_int8_1d", {Random(DType::kInt8, {2, 3, 11}, 15, -128, 127)}, [](DagBuilder& b, In in) {
    PoolParams p;
    p.kernel = {3}, p.stride = {2}, p.padding = {1, 1}, p.dilation = {2};
    return Pool(b, in[0], p);
  });
  add("max_pool_indices_column_major", {Random(f32, {1, 3, 7, 6}, 78, -3, 3)}, [](DagBuilder& b, In in) -> absl::StatusOr<Tensor> {
    PoolParams p;
    p.kernel = {3, 2}, p.stride = {2, 2}, p.padding = {1, 1, 1, 0}, p.ceil_mode = true;
    auto y = Pool(b, in[0], p);
    if (!y.ok()) return y.status();
    return MaxPoolIndices(b, in[0], *y, p, PoolIndexOrder::kColumnMajor);
  });
  add("global_avg_pool", {Random(f32, {2, 3, 5, 4}, 16)}, [](DagBuilder& b, In in) { return GlobalPool(b, in[0], PoolKind::kAvg); }, 1e-6);
  add("softmax_axis1", {Random(f32, {2, 5, 3}, 17, -4, 4)}, [](DagBuilder& b, In in) { return Softmax(b, in[0], SoftmaxParams{1}); }, 1e-5);
  add("log_softmax", {Random(DType::kFloat64, {3, 7}, 18, -4, 4)}, [](DagBuilder& b, In in) { return LogSoftmax(b, in[0], SoftmaxParams{}); }, 1e-9);
  add("layer_norm_2axes", {Random(f32, {2, 3, 4}, 19), Random(f32, {3, 4}, 20), Random(f32, {3, 4}, 21)},
      [](DagBuilder& b, In in) { return LayerNorm(b, in[0], in[1], in[2], LayerNormParams{1, 1e-5}); }, 1e-5);
  add("batch_norm", {Random(f32, {2, 3, 4, 2}, 22), Random(f32, {3}, 23), Random(f32, {3}, 24), Random(f32, {3}, 25),
                     Random(f32, {3}, 26, 0.1, 1)},
      [](DagBuilder& b, In in) { return BatchNormInference(b, in[0], in[1], in[2], in[3], in[4], BatchNormParams{}); }, 1e-5);
  for (UnaryOp op : {UnaryOp::kSigmoid, UnaryOp::kTanh, UnaryOp::kErf, UnaryOp::kGelu, UnaryOp::kSoftplus,
                     UnaryOp::kHardSwish, UnaryOp::kExp, UnaryOp::kLog, UnaryOp::kFloor, UnaryOp::kLeakyRelu}) {
    double lo = op == UnaryOp::kLog ? 0.01 : -6;
    add(std::string(UnaryOpName(op)), {Random(f32, {5, 9}, 27 + static_cast<int>(op), lo, 6)},
        [op](DagBuilder& b, In in) {
          UnaryParams p;
          p.op = op;
          return Unary(b, in[0], p);
        }, 2e-5);
  }
  add("div_int32_broadcast", {Random(DType::kInt32, {3, 4}, 50, -100, 100), Random(DType::kInt32, {4}, 51, -5, 5)},
      [](DagBuilder& b, In in) { return Binary(b, in[0], in[1], BinaryOp::kDiv); });
  add("pow_float", {Random(f32, {4, 5}, 52, -2, 2), Random(f32, {5}, 53, 0, 3)},
      [](DagBuilder& b, In in) { return Binary(b, in[0], in[1], BinaryOp::kPow); }, 1e-5);
  add("pow_int64", {Random(DType::kInt64, {4, 5}, 54, -5, 5), Random(DType::kInt64, {4, 5}, 55, 0, 6)},
      [](DagBuilder& b, In in) { return Binary(b, in[0], in[1], BinaryOp::kPow); });
  add("less_uint8", {Random(DType::kUInt8, {2, 1, 3}, 56, 0, 255), Random(DType::kUInt8, {4, 1}, 57, 0, 255)},
      [](DagBuilder& b, In in) { return Binary(b, in[0], in[1], BinaryOp::kLess); });
  add("where_int16", {Random(DType::kBool, {3, 1}, 58), Random(DType::kInt16, {1, 4}, 59, -1000, 1000),
                      Random(DType::kInt16, {3, 4}, 60, -1000, 1000)},
      [](DagBuilder& b, In in) { return Where(b, in[0], in[1], in[2]); });
  add("cast_f32_to_int8", {Random(f32, {4, 6}, 61, -120, 120)}, [](DagBuilder& b, In in) { return Cast(b, in[0], DType::kInt8); });
  add("cast_int64_to_f32", {Random(DType::kInt64, {4, 6}, 62, -1e9, 1e9)}, [](DagBuilder& b, In in) { return Cast(b, in[0], DType::kFloat32); });
  add("cast_f64_to_bool", {Random(DType::kFloat64, {4, 6}, 63, -1, 1)}, [](DagBuilder& b, In in) { return Cast(b, in[0], DType::kBool); });
  add("clip_int32", {Random(DType::kInt32, {4, 6}, 64, -100, 100)}, [](DagBuilder& b, In in) { return Clip(b, in[0], ClipParams{-10.0, 20.0}); });
  add("reduce_prod_int32", {Random(DType::kInt32, {3, 4, 5}, 65, -4, 4)},
      [](DagBuilder& b, In in) { return Reduce(b, in[0], ReduceParams{ReduceOp::kProd, {0, 2}, false}); });
  add("reduce_mean_f32", {Random(f32, {3, 4, 5}, 66)},
      [](DagBuilder& b, In in) { return Reduce(b, in[0], ReduceParams{ReduceOp::kMean, {1}, true}); }, 1e-6);
  add("reduce_min_uint8_all", {Random(DType::kUInt8, {3, 4, 5}, 67, 0, 255)},
      [](DagBuilder& b, In in) { return Reduce(b, in[0], ReduceParams{ReduceOp::kMin, {}, false}); });
  add("pad_reflect", {Random(f32, {3, 4}, 68)},
      [](DagBuilder& b, In in) { return Pad(b, in[0], PadParams{PadMode::kReflect, {2, 5, 3, 1}, 0}); });
  add("pad_constant_int8", {Random(DType::kInt8, {2, 3, 3}, 69, -100, 100)},
      [](DagBuilder& b, In in) { return Pad(b, in[0], PadParams{PadMode::kConstant, {0, 1, 1, 0, 2, -1}, -7}); });
  add("concat", {Random(f32, {2, 3}, 70), Random(f32, {2, 1}, 71), Random(f32, {2, 4}, 72)},
      [](DagBuilder& b, In in) { return Concat(b, in, 1); });
  add("slice_negative_step", {Random(DType::kInt64, {5, 7}, 73, -1e12, 1e12)},
      [](DagBuilder& b, In in) { return Slice(b, in[0], SliceParams{{4, 6}, {0, -100}, {}, {-2, -3}}); });
  add("gather_int64_indices", {Random(f32, {4, 5, 3}, 74), Random(DType::kInt64, {2, 3}, 75, -5, 4)},
      [](DagBuilder& b, In in) { return Gather(b, in[0], in[1], GatherParams{1}); });
  add("transpose_bool", {Random(DType::kBool, {2, 3, 5}, 76)},
      [](DagBuilder& b, In in) { return Transpose(b, in[0], TransposeParams{{2, 0, 1}}); });
  add("reshape", {Random(DType::kFloat64, {6, 5}, 77)},
      [](DagBuilder& b, In in) { return Reshape(b, in[0], ReshapeParams{{3, -1, 5}}); });
  return cases;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class CodegenAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(CodegenAgreement, SharedObjectMatchesTheInterpreter) {
  const Case& c = GetParam();
  auto dag = BuildOpDag(c.inputs, c.op);
  ASSERT_TRUE(dag.ok()) << dag.status();
  auto want = Interpret(**dag, c.inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = RunSharedObject(**dag, c.inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(AllClose(*got, *want, c.tol, c.tol));
}

INSTANTIATE_TEST_SUITE_P(Ops, CodegenAgreement, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace tunefarm::ops::testing
