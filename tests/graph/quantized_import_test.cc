// The integer ops of quantized models (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv)
// against their ONNX definitions written out, on random int8/uint8 data with the cases the
// conformance suite leaves out: per-row and per-column zero points, per-channel weight zero
// points and scales, signed outputs that saturate, rounding ties. All inputs are initializers,
// so the import folds the whole model through the ops' computes and the output is a constant.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "compiler/frontend/onnx_importer.h"
#include "tests/common/quantized_conv_reference.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

using graph::HostTensor;

struct Model {
  onnx::ModelProto m;
  onnx::NodeProto* node;
  Model(const std::string& op) {
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    node = m.mutable_graph()->add_node();
    node->set_op_type(op);
    node->add_output("y");
    m.mutable_graph()->add_output()->set_name("y");
  }
  void Input(const std::string& name, onnx::TensorProto::DataType type, std::vector<int64_t> dims,
             const std::vector<double>& values) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    for (double v : values) {
      if (type == onnx::TensorProto::FLOAT) t->add_float_data(static_cast<float>(v));
      else t->add_int32_data(static_cast<int32_t>(v));  // int8, uint8 and int32 are stored here
    }
    node->add_input(name);
  }
  void Skip() { node->add_input(""); }
  std::vector<double> Run() const {
    auto g = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
    EXPECT_TRUE(g.ok()) << g.status();
    if (!g.ok() || g->params().size() != 1) return {};
    const HostTensor& y = g->params().begin()->second;
    std::vector<double> out;
    for (int64_t i = 0; i < y.NumElements(); ++i) out.push_back(y.GetDouble(i));
    return out;
  }
};

std::vector<double> RandomInts(std::mt19937& rng, int64_t count, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<double> v(count);
  for (double& x : v) x = d(rng);
  return v;
}

TEST(QuantizedImport, MatMulIntegerWithPerRowAndPerColumnZeroPoints) {
  std::mt19937 rng(3);
  const int64_t M = 3, K = 5, N = 4;
  auto a = RandomInts(rng, M * K, -128, 127), b = RandomInts(rng, K * N, 0, 255);
  auto a_zp = RandomInts(rng, M, -5, 5), b_zp = RandomInts(rng, N, 120, 135);
  Model model("MatMulInteger");
  model.Input("a", onnx::TensorProto::INT8, {M, K}, a);
  model.Input("b", onnx::TensorProto::UINT8, {K, N}, b);
  model.Input("a_zp", onnx::TensorProto::INT8, {M}, a_zp);
  model.Input("b_zp", onnx::TensorProto::UINT8, {N}, b_zp);
  std::vector<double> want(M * N, 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) want[i * N + j] += (a[i * K + k] - a_zp[i]) * (b[k * N + j] - b_zp[j]);
  EXPECT_EQ(model.Run(), want);
}

// uint8 A times int8 B with K a multiple of 4 and N of 16 runs through the packed kernel
// (ops/int8_matmul.h), the zero points applied after it; batched A, per-row and per-column zero
// points.
TEST(QuantizedImport, MatMulIntegerOfUnsignedBySignedTakesThePackedKernel) {
  std::mt19937 rng(11);
  const int64_t batch = 2, M = 3, K = 8, N = 32;
  auto a = RandomInts(rng, batch * M * K, 0, 255), b = RandomInts(rng, K * N, -128, 127);
  auto a_zp = RandomInts(rng, M, 100, 140), b_zp = RandomInts(rng, N, -6, 6);
  Model model("MatMulInteger");
  model.Input("a", onnx::TensorProto::UINT8, {batch, M, K}, a);
  model.Input("b", onnx::TensorProto::INT8, {K, N}, b);
  model.Input("a_zp", onnx::TensorProto::UINT8, {M}, a_zp);
  model.Input("b_zp", onnx::TensorProto::INT8, {N}, b_zp);
  std::vector<double> want(batch * M * N, 0);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        for (int64_t k = 0; k < K; ++k)
          want[(p * M + i) * N + j] += (a[(p * M + i) * K + k] - a_zp[i]) * (b[k * N + j] - b_zp[j]);
  EXPECT_EQ(model.Run(), want);
  // Each zero point alone.
  for (bool with_a_zp : {true, false}) {
    Model one("MatMulInteger");
    one.Input("a", onnx::TensorProto::UINT8, {batch, M, K}, a);
    one.Input("b", onnx::TensorProto::INT8, {K, N}, b);
    if (with_a_zp) {
      one.Input("a_zp", onnx::TensorProto::UINT8, {}, {7});
    } else {
      one.Skip();
      one.Input("b_zp", onnx::TensorProto::INT8, {}, {-3});
    }
    std::vector<double> expect(batch * M * N, 0);
    for (int64_t r = 0; r < batch * M; ++r)
      for (int64_t j = 0; j < N; ++j)
        for (int64_t k = 0; k < K; ++k)
          expect[r * N + j] += (a[r * K + k] - (with_a_zp ? 7 : 0)) * (b[k * N + j] - (with_a_zp ? 0 : -3));
    EXPECT_EQ(one.Run(), expect) << (with_a_zp ? "a's zero point" : "b's zero point");
  }
  // Zero points of zeros are left out of the correction; the product is plain.
  Model zeros("MatMulInteger");
  zeros.Input("a", onnx::TensorProto::UINT8, {batch, M, K}, a);
  zeros.Input("b", onnx::TensorProto::INT8, {K, N}, b);
  zeros.Input("a_zp", onnx::TensorProto::UINT8, {}, {0});
  zeros.Input("b_zp", onnx::TensorProto::INT8, {N}, std::vector<double>(N, 0));
  std::vector<double> plain(batch * M * N, 0);
  for (int64_t r = 0; r < batch * M; ++r)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) plain[r * N + j] += a[r * K + k] * b[k * N + j];
  EXPECT_EQ(zeros.Run(), plain);
}

TEST(QuantizedImport, QLinearConvWithPerChannelWeightsAndASignedSaturatingOutput) {
  std::mt19937 rng(5);
  const int64_t C = 2, H = 4, W = 4, M = 3, R = 3;
  auto x = RandomInts(rng, C * H * W, -128, 127), w = RandomInts(rng, M * C * R * R, -128, 127);
  auto w_zp = std::vector<double>{0, 0, 0};  // ONNX: int8 weights have zero points 0
  auto bias = RandomInts(rng, M, -2000, 2000);
  const double x_scale = 0.05, y_scale = 0.05;
  const std::vector<double> w_scale = {0.01, 0.02, 0.004};
  const double x_zp = -3, y_zp = 5;
  Model model("QLinearConv");
  model.Input("x", onnx::TensorProto::INT8, {1, C, H, W}, x);
  model.Input("x_scale", onnx::TensorProto::FLOAT, {}, {x_scale});
  model.Input("x_zp", onnx::TensorProto::INT8, {}, {x_zp});
  model.Input("w", onnx::TensorProto::INT8, {M, C, R, R}, w);
  model.Input("w_scale", onnx::TensorProto::FLOAT, {M}, w_scale);
  model.Input("w_zp", onnx::TensorProto::INT8, {M}, w_zp);
  model.Input("y_scale", onnx::TensorProto::FLOAT, {}, {y_scale});
  model.Input("y_zp", onnx::TensorProto::INT8, {}, {y_zp});
  model.Input("B", onnx::TensorProto::INT32, {M}, bias);
  auto* pads = model.node->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  const std::vector<int64_t> acc = testing::QuantizedConvAccumulators({C, H, W, M, R, 1, 1, x, w, bias, x_zp, w_zp});
  std::vector<double> want;
  bool saturated = false;
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t m = static_cast<int64_t>(i) / (H * W);
    const float factor = static_cast<float>(x_scale) * static_cast<float>(w_scale[m]) / static_cast<float>(y_scale);
    const double q = testing::Requantized(acc[i], factor, y_zp, -1e9, 1e9);
    saturated = saturated || q < -128 || q > 127;
    want.push_back(std::clamp(q, -128.0, 127.0));
  }
  EXPECT_TRUE(saturated) << "the data should exercise saturation";
  EXPECT_EQ(model.Run(), want);
}

// uint8 data by int8 weights with C a multiple of 4 and K of 16 runs through the packed conv
// (ops/int8_conv.h): padded with x's zero point, strided, per-channel scales, a bias.
// C = 32 packs x in blocks of 16 channels, C = 8 in blocks of 4.
TEST(QuantizedImport, QLinearConvOfUnsignedBySignedTakesThePackedKernel) {
  for (const int64_t C : {8, 32}) {
    SCOPED_TRACE(C);
    std::mt19937 rng(17);
    const int64_t H = 7, W = 6, M = 16, R = 3, stride = 2;
    auto x = RandomInts(rng, C * H * W, 0, 255), w = RandomInts(rng, M * C * R * R, -128, 127);
    auto bias = RandomInts(rng, M, -3000, 3000);
    std::vector<double> w_scale(M);
    for (double& v : w_scale) v = std::uniform_real_distribution<double>(0.001, 0.01)(rng);
    const double x_scale = 0.03, y_scale = 0.2, x_zp = 121, y_zp = 130;
    Model model("QLinearConv");
    model.Input("x", onnx::TensorProto::UINT8, {1, C, H, W}, x);
    model.Input("x_scale", onnx::TensorProto::FLOAT, {}, {x_scale});
    model.Input("x_zp", onnx::TensorProto::UINT8, {}, {x_zp});
    model.Input("w", onnx::TensorProto::INT8, {M, C, R, R}, w);
    model.Input("w_scale", onnx::TensorProto::FLOAT, {M}, w_scale);
    model.Input("w_zp", onnx::TensorProto::INT8, {M}, std::vector<double>(M, 0));
    model.Input("y_scale", onnx::TensorProto::FLOAT, {}, {y_scale});
    model.Input("y_zp", onnx::TensorProto::UINT8, {}, {y_zp});
    model.Input("B", onnx::TensorProto::INT32, {M}, bias);
    for (const char* name : {"pads", "strides"}) {
      auto* attr = model.node->add_attribute();
      attr->set_name(name);
      attr->set_type(onnx::AttributeProto::INTS);
      for (int i = 0; i < (name[0] == 'p' ? 4 : 2); ++i) attr->add_ints(name[0] == 'p' ? 1 : stride);
    }
    const testing::QuantizedConvCase q{C, H, W, M, R, 1, stride, x, w, bias, x_zp, {}};
    const std::vector<int64_t> acc = testing::QuantizedConvAccumulators(q);
    std::vector<double> want;
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t m = static_cast<int64_t>(i) / (q.OutH() * q.OutW());
      const float factor = static_cast<float>(x_scale) * static_cast<float>(w_scale[m]) / static_cast<float>(y_scale);
      want.push_back(testing::Requantized(acc[i], factor, y_zp, 0, 255));
    }
    EXPECT_EQ(model.Run(), want);
  }
}

// int8 data and uint8 weights take the packed kernels too, shifted by 128 with their zero
// points (shifted_operand.h): int8 x int8 and uint8 x uint8 products, exact.
TEST(QuantizedImport, MatMulIntegerOfOtherSignednessesShiftsBy128) {
  std::mt19937 rng(23);
  const int64_t M = 3, K = 8, N = 16;
  struct Case {
    onnx::TensorProto::DataType a_type, b_type;
    int a_lo, a_hi, b_lo, b_hi;
  };
  for (const Case& c : {Case{onnx::TensorProto::INT8, onnx::TensorProto::INT8, -128, 127, -128, 127},
                        Case{onnx::TensorProto::UINT8, onnx::TensorProto::UINT8, 0, 255, 0, 255}}) {
    SCOPED_TRACE(c.a_type == onnx::TensorProto::INT8 ? "int8 x int8" : "uint8 x uint8");
    auto a = RandomInts(rng, M * K, c.a_lo, c.a_hi), b = RandomInts(rng, K * N, c.b_lo, c.b_hi);
    for (int zero_points = 0; zero_points < 2; ++zero_points) {  // none, then per row and per column
      auto a_zp = zero_points ? RandomInts(rng, M, c.a_lo, c.a_hi) : std::vector<double>(M, 0);
      auto b_zp = zero_points ? RandomInts(rng, N, c.b_lo, c.b_hi) : std::vector<double>(N, 0);
      Model model("MatMulInteger");
      model.Input("a", c.a_type, {M, K}, a);
      model.Input("b", c.b_type, {K, N}, b);
      if (zero_points) {
        model.Input("a_zp", c.a_type, {M}, a_zp);
        model.Input("b_zp", c.b_type, {N}, b_zp);
      }
      std::vector<double> want(M * N, 0);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j)
          for (int64_t k = 0; k < K; ++k) want[i * N + j] += (a[i * K + k] - a_zp[i]) * (b[k * N + j] - b_zp[j]);
      EXPECT_EQ(model.Run(), want) << (zero_points ? "with zero points" : "without zero points");
    }
  }
}

// QLinearConv of int8 data by int8 weights (x's zero point shifts with it, padding included),
// and of uint8 data by uint8 weights whose zero point is 128 (zeros once shifted).
TEST(QuantizedImport, QLinearConvOfOtherSignednessesShiftsBy128) {
  std::mt19937 rng(29);
  const int64_t C = 16, H = 5, W = 6, M = 16, R = 3;
  for (const bool signed_x : {true, false}) {
    SCOPED_TRACE(signed_x ? "int8 x int8" : "uint8 x uint8");
    const auto x_type = signed_x ? onnx::TensorProto::INT8 : onnx::TensorProto::UINT8;
    const auto w_type = signed_x ? onnx::TensorProto::INT8 : onnx::TensorProto::UINT8;
    auto x = signed_x ? RandomInts(rng, C * H * W, -128, 127) : RandomInts(rng, C * H * W, 0, 255);
    auto w = signed_x ? RandomInts(rng, M * C * R * R, -128, 127) : RandomInts(rng, M * C * R * R, 0, 255);
    const double x_zp = signed_x ? -7 : 131, w_zp = signed_x ? 0 : 128;
    const double x_scale = 0.05, w_scale = 0.004, y_scale = 0.3, y_zp = signed_x ? 3 : 120;
    Model model("QLinearConv");
    model.Input("x", x_type, {1, C, H, W}, x);
    model.Input("x_scale", onnx::TensorProto::FLOAT, {}, {x_scale});
    model.Input("x_zp", x_type, {}, {x_zp});
    model.Input("w", w_type, {M, C, R, R}, w);
    model.Input("w_scale", onnx::TensorProto::FLOAT, {}, {w_scale});
    model.Input("w_zp", w_type, {}, {w_zp});
    model.Input("y_scale", onnx::TensorProto::FLOAT, {}, {y_scale});
    model.Input("y_zp", x_type, {}, {y_zp});
    auto* attr = model.node->add_attribute();
    attr->set_name("pads");
    attr->set_type(onnx::AttributeProto::INTS);
    for (int i = 0; i < 4; ++i) attr->add_ints(1);
    const testing::QuantizedConvCase q{C, H, W, M, R, 1, 1, x, w, {}, x_zp, std::vector<double>(M, w_zp)};
    const std::vector<int64_t> acc = testing::QuantizedConvAccumulators(q);
    const float factor = static_cast<float>(x_scale) * static_cast<float>(w_scale) / static_cast<float>(y_scale);
    std::vector<double> want;
    for (int64_t v : acc) want.push_back(testing::Requantized(v, factor, y_zp, signed_x ? -128 : 0, signed_x ? 127 : 255));
    EXPECT_EQ(model.Run(), want);
  }
}

TEST(QuantizedImport, QLinearMatMulRoundsHalfToEven) {
  // acc = a * b with every zero point 0 and factor 0.5: 1 -> 0.5 -> 0, 3 -> 1.5 -> 2, 5 -> 2.5 -> 2.
  Model model("QLinearMatMul");
  model.Input("a", onnx::TensorProto::UINT8, {3, 1}, {1, 3, 5});
  model.Input("a_scale", onnx::TensorProto::FLOAT, {}, {0.5});
  model.Input("a_zp", onnx::TensorProto::UINT8, {}, {0});
  model.Input("b", onnx::TensorProto::UINT8, {1, 1}, {1});
  model.Input("b_scale", onnx::TensorProto::FLOAT, {}, {1});
  model.Input("b_zp", onnx::TensorProto::UINT8, {}, {0});
  model.Input("y_scale", onnx::TensorProto::FLOAT, {}, {1});
  model.Input("y_zp", onnx::TensorProto::UINT8, {}, {0});
  EXPECT_EQ(model.Run(), (std::vector<double>{0, 2, 2}));
}

TEST(QuantizedImport, FloatOperandsAreNamedErrors) {
  Model model("MatMulInteger");
  model.Input("a", onnx::TensorProto::FLOAT, {1, 1}, {1});
  model.Input("b", onnx::TensorProto::UINT8, {1, 1}, {1});
  auto g = ImportOnnxBytes(model.m.SerializeAsString(), {}, "model.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("A must be uint8 or int8"), std::string::npos) << g.status();
}

// On the packed path too, a zero point of another dtype than its operand is an error naming both.
TEST(QuantizedImport, AZeroPointOfAnotherDtypeIsANamedError) {
  Model model("MatMulInteger");
  model.Input("a", onnx::TensorProto::INT8, {2, 8}, std::vector<double>(16, 1));
  model.Input("b", onnx::TensorProto::INT8, {8, 16}, std::vector<double>(128, 1));
  model.Input("a_zp", onnx::TensorProto::UINT8, {}, {3});
  auto g = ImportOnnxBytes(model.m.SerializeAsString(), {}, "model.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("a's zero point uint8[] differs in dtype from int8[2,8]"), std::string::npos)
      << g.status();
}

}  // namespace
}  // namespace tunefarm::frontend
