// A QLinearMatMul model as users bring it (A a graph input; B and the quantization parameters
// initializers), imported, compiled and run: the packed uint8 x int8 kernel (ops/int8_matmul.h)
// with its zero-point corrections and the requantization, against ONNX's definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "compiler/frontend/onnx_importer.h"
#include "onnx/onnx_pb.h"
#include "tests/build/compile_and_run.h"
#include "tests/common/quantized_conv_reference.h"

namespace tunefarm::build {
namespace {

void AddInitializer(onnx::GraphProto* g, const std::string& name, onnx::TensorProto::DataType type,
                    std::vector<int64_t> dims, const std::vector<double>& values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  for (double v : values) {
    if (type == onnx::TensorProto::FLOAT) {
      t->add_float_data(static_cast<float>(v));
    } else {
      t->add_int32_data(static_cast<int32_t>(v));  // int8 and uint8 are stored here
    }
  }
}

void AddUint8Input(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims,
                   onnx::TensorProto::DataType elem_type = onnx::TensorProto::UINT8) {
  auto* input = g->add_input();
  input->set_name(name);
  auto* type = input->mutable_type()->mutable_tensor_type();
  type->set_elem_type(elem_type);
  for (int64_t d : dims) type->mutable_shape()->add_dim()->set_dim_value(d);
}

bool HasOp(const graph::Graph& g, const std::string& op) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [&](const graph::Node& n) { return n.op == op; });
}

TEST(QuantizedModelTest, QLinearMatMulOfUnsignedBySignedMatchesTheDefinition) {
  const int64_t M = 6, K = 64, N = 48;
  const float a_scale = 0.02f, b_scale = 0.005f, y_scale = 0.04f;
  const int a_zp = 131, b_zp = -2, y_zp = 120;
  std::mt19937 rng(21);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  std::string a(M * K, '\0');
  for (char& v : a) v = static_cast<char>(u8(rng));
  std::vector<double> b(K * N);
  for (double& v : b) v = s8(rng);

  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  AddUint8Input(g, "a", {M, K});
  AddInitializer(g, "a_scale", onnx::TensorProto::FLOAT, {}, {a_scale});
  AddInitializer(g, "a_zp", onnx::TensorProto::UINT8, {}, {double(a_zp)});
  AddInitializer(g, "b", onnx::TensorProto::INT8, {K, N}, b);
  AddInitializer(g, "b_scale", onnx::TensorProto::FLOAT, {}, {b_scale});
  AddInitializer(g, "b_zp", onnx::TensorProto::INT8, {}, {double(b_zp)});
  AddInitializer(g, "y_scale", onnx::TensorProto::FLOAT, {}, {y_scale});
  AddInitializer(g, "y_zp", onnx::TensorProto::UINT8, {}, {double(y_zp)});
  auto* node = g->add_node();
  node->set_op_type("QLinearMatMul");
  for (const char* name : {"a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "y_scale", "y_zp"}) node->add_input(name);
  node->add_output("y");
  g->add_output()->set_name("y");

  auto graph = frontend::ImportOnnxBytes(m.SerializeAsString(), {}, "qlinear_matmul.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(HasOp(*graph, "MatMulU8S8")) << "the import should take the packed kernel";
  std::vector<std::string> out = CompileAndRun(*graph, {a});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].size(), static_cast<size_t>(M * N));

  // The factor in float32, as ONNX's reference computes it from float32 scales.
  const float factor = a_scale * b_scale / y_scale;
  int saturated = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int64_t acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (static_cast<uint8_t>(a[i * K + k]) - a_zp) * (static_cast<int64_t>(b[k * N + j]) - b_zp);
      const double q = std::nearbyint(static_cast<double>(acc) * factor) + y_zp;
      saturated += q < 0 || q > 255;
      ASSERT_EQ(static_cast<uint8_t>(out[0][i * N + j]), std::clamp(q, 0.0, 255.0)) << "y[" << i << ", " << j << "]";
    }
  EXPECT_LT(saturated, M * N / 2) << "most outputs should be in range, so the test sees the arithmetic";
}

bool HasFloatConv(const graph::Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const graph::Node& n) {
    return n.op == "Conv" && n.outputs[0].dtype == te::DType::kFloat32;
  });
}

// A padded 3x3 QLinearConv with per-channel weight scales and a bias, x a graph input: packed
// and padded with x's zero point at run time, the conv in the blocked layout, back to NCHW.
// x uint8, or int8 (shifted by 128 at run time: shifted_operand.h). Depthwise (one channel
// per group, C channels): the conv runs in float32, exact for so few products per output.
void CheckQLinearConv(bool signed_x, int64_t groups = 1, bool depthwise = false) {
  const int64_t C = depthwise ? groups : 16 * groups, H = 10, W = 9, K = depthwise ? C : 32, R = 3;
  const float x_scale = 0.02f, y_scale = 0.1f;
  const int x_zp = signed_x ? -9 : 119, y_zp = signed_x ? 0 : 128;
  const auto x_type = signed_x ? onnx::TensorProto::INT8 : onnx::TensorProto::UINT8;
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  std::uniform_real_distribution<double> scale(0.002, 0.01);
  std::string x(C * H * W, '\0');
  for (char& v : x) v = static_cast<char>(signed_x ? s8(rng) : u8(rng));
  std::vector<double> w(K * (C / groups) * R * R), w_scale(K), bias(K);
  for (double& v : w) v = s8(rng);
  for (double& v : w_scale) v = static_cast<float>(scale(rng));
  for (double& v : bias) v = std::uniform_int_distribution<int>(-2000, 2000)(rng);

  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  AddUint8Input(g, "x", {1, C, H, W}, x_type);
  AddInitializer(g, "x_scale", onnx::TensorProto::FLOAT, {}, {x_scale});
  AddInitializer(g, "x_zp", x_type, {}, {double(x_zp)});
  AddInitializer(g, "w", onnx::TensorProto::INT8, {K, C / groups, R, R}, w);
  AddInitializer(g, "w_scale", onnx::TensorProto::FLOAT, {K}, w_scale);
  AddInitializer(g, "w_zp", onnx::TensorProto::INT8, {K}, std::vector<double>(K, 0));
  AddInitializer(g, "y_scale", onnx::TensorProto::FLOAT, {}, {y_scale});
  AddInitializer(g, "y_zp", x_type, {}, {double(y_zp)});
  AddInitializer(g, "B", onnx::TensorProto::INT32, {K}, bias);
  auto* node = g->add_node();
  node->set_op_type("QLinearConv");
  for (const char* name : {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp", "B"}) node->add_input(name);
  node->add_output("y");
  auto* pads = node->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  if (groups > 1) {
    auto* group = node->add_attribute();
    group->set_name("group");
    group->set_type(onnx::AttributeProto::INT);
    group->set_i(groups);
  }
  g->add_output()->set_name("y");

  auto graph = frontend::ImportOnnxBytes(m.SerializeAsString(), {}, "qlinear_conv.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  if (depthwise) {
    EXPECT_TRUE(HasFloatConv(*graph)) << "a depthwise conv should run in float32";
  } else {
    EXPECT_TRUE(HasOp(*graph, "ConvU8S8")) << "the import should take the packed kernel";
  }
  std::vector<std::string> out = CompileAndRun(*graph, {x});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].size(), static_cast<size_t>(K * H * W));
  std::vector<double> x_values;
  for (char v : x) x_values.push_back(signed_x ? static_cast<int8_t>(v) : static_cast<uint8_t>(v));
  const std::vector<int64_t> acc =
      testing::QuantizedConvAccumulators({C, H, W, K, R, 1, 1, x_values, w, bias, double(x_zp), {}, groups});
  for (size_t i = 0; i < acc.size(); ++i) {
    const float factor = x_scale * static_cast<float>(w_scale[i / (H * W)]) / y_scale;
    const double got = signed_x ? static_cast<int8_t>(out[0][i]) : static_cast<uint8_t>(out[0][i]);
    ASSERT_EQ(got, testing::Requantized(acc[i], factor, y_zp, signed_x ? -128 : 0, signed_x ? 127 : 255)) << "y at " << i;
  }
}

TEST(QuantizedModelTest, QLinearConvOfUnsignedBySignedMatchesTheDefinition) { CheckQLinearConv(false); }
TEST(QuantizedModelTest, QLinearConvOfSignedBySignedMatchesTheDefinition) { CheckQLinearConv(true); }
// Two groups of 16 channels in and out: one packed conv per group, joined.
TEST(QuantizedModelTest, GroupedQLinearConvMatchesTheDefinition) { CheckQLinearConv(false, 2); }
// 24 channels, one per group (MobileNet's depthwise convs): not a multiple of the float path's
// 16-channel blocks, so the blocked layout pads channels.
TEST(QuantizedModelTest, DepthwiseQLinearConvMatchesTheDefinition) { CheckQLinearConv(false, 24, true); }
TEST(QuantizedModelTest, SignedDepthwiseQLinearConvMatchesTheDefinition) { CheckQLinearConv(true, 24, true); }

// ConvInteger's int32 sums at the edge of float32's exact range: 256 products per output, each
// (0 - 255) * (255 - 0), sum -16,646,400 (2^24 is 16,777,216). Wrong by rounding if the float
// path took more products than float32 holds exactly, or lost an operand's sign.
TEST(QuantizedModelTest, ConvIntegerInFloat32IsExactAtTheEdgeOfItsRange) {
  const int64_t C = 16, H = 6, W = 6, K = 2, R = 4;
  std::mt19937 rng(29);
  std::bernoulli_distribution rare(0.1);
  std::string x(C * H * W, '\0');
  for (char& v : x) v = static_cast<char>(rare(rng) ? 254 : 0);
  std::vector<double> w(K * C * R * R);
  for (double& v : w) v = rare(rng) ? 1 : 255;

  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  AddUint8Input(g, "x", {1, C, H, W});
  AddInitializer(g, "w", onnx::TensorProto::UINT8, {K, C, R, R}, w);
  AddInitializer(g, "x_zp", onnx::TensorProto::UINT8, {}, {255});
  AddInitializer(g, "w_zp", onnx::TensorProto::UINT8, {}, {0});
  auto* node = g->add_node();
  node->set_op_type("ConvInteger");
  for (const char* name : {"x", "w", "x_zp", "w_zp"}) node->add_input(name);
  node->add_output("y");
  g->add_output()->set_name("y");

  auto graph = frontend::ImportOnnxBytes(m.SerializeAsString(), {}, "conv_integer.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(HasFloatConv(*graph)) << "256 products per output fit float32";
  std::vector<std::string> out = CompileAndRun(*graph, {x});
  ASSERT_EQ(out.size(), 1u);
  const int64_t outputs = K * (H - R + 1) * (W - R + 1);
  ASSERT_EQ(out[0].size(), static_cast<size_t>(outputs * 4));
  std::vector<double> x_values;
  for (char v : x) x_values.push_back(static_cast<uint8_t>(v));
  const std::vector<int64_t> want = testing::QuantizedConvAccumulators({C, H, W, K, R, 0, 1, x_values, w, {}, 255, {}, 1});
  int64_t largest = 0;
  for (int64_t i = 0; i < outputs; ++i) {
    int32_t got = 0;
    std::memcpy(&got, out[0].data() + 4 * i, 4);
    ASSERT_EQ(got, want[i]) << "y at " << i;
    largest = std::max(largest, std::abs(want[i]));
  }
  EXPECT_GT(largest, int64_t{1} << 23) << "the sums should reach float32's last exact octave";
}

}  // namespace
}  // namespace tunefarm::build
