// Writes a quantized model in ONNX's QOperator form (uint8 activations, int8 weights, as ONNX
// Runtime's quantizer writes them), for the int8 benchmark: model_bench.sh times it against ONNX
// Runtime, whose QLinearMatMul and QLinearConv are its own VNNI kernels. Weights and scales are
// seeded random, so a file is the same on every run.
//   mlp:   a transformer's feed-forward block: x float [rows, d] -> QuantizeLinear ->
//          QLinearMatMul by W1 [d, 4d] -> QLinearMatMul by W2 [4d, d] -> DequantizeLinear;
//   convs: two 3x3 convs of ResNet-18's first stage: x float [1, c, size, size] ->
//          QuantizeLinear -> QLinearConv c->c, pad 1 -> QLinearConv c->c -> DequantizeLinear;
//   depthwise: MobileNetV2's depthwise 3x3 convs: x float [1, c, size, size] -> QuantizeLinear ->
//          QLinearConv group c, pad 1 -> QLinearConv group c, pad 1 -> DequantizeLinear.
//
// usage: make_quantized_model mlp OUT.onnx [rows (64)] [d (768)]
//        make_quantized_model convs OUT.onnx [c (64)] [size (56)]
//        make_quantized_model depthwise OUT.onnx [c (144)] [size (56)]
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace {

void Scalar(onnx::GraphProto* g, const std::string& name, onnx::TensorProto::DataType type, double v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  if (type == onnx::TensorProto::FLOAT) {
    t->add_float_data(static_cast<float>(v));
  } else {
    t->add_int32_data(static_cast<int32_t>(v));
  }
}

void Weight(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims, std::mt19937& rng) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT8);
  int64_t count = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    count *= d;
  }
  std::string bytes(count, '\0');
  std::uniform_int_distribution<int> value(-127, 127);
  for (char& b : bytes) b = static_cast<char>(value(rng));
  t->set_raw_data(bytes);
}

onnx::NodeProto* Node(onnx::GraphProto* g, const std::string& op, std::initializer_list<const char*> in, const char* out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(out);
  for (const char* i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

void Value(onnx::ValueInfoProto* v, const char* name, const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

// Scales and zero points: x in [-1, 1], activations in uint8 around 128, weights symmetric.
void QuantizationParams(onnx::GraphProto* g, double w_scale) {
  Scalar(g, "x_scale", onnx::TensorProto::FLOAT, 2.0 / 255);
  Scalar(g, "x_zp", onnx::TensorProto::UINT8, 128);
  Scalar(g, "w_scale", onnx::TensorProto::FLOAT, w_scale);
  Scalar(g, "w_zp", onnx::TensorProto::INT8, 0);
  Scalar(g, "h_scale", onnx::TensorProto::FLOAT, 0.05);
  Scalar(g, "h_zp", onnx::TensorProto::UINT8, 128);
  Scalar(g, "y_scale", onnx::TensorProto::FLOAT, 0.05);
  Scalar(g, "y_zp", onnx::TensorProto::UINT8, 128);
}

void Mlp(onnx::GraphProto* g, int64_t rows, int64_t d, std::mt19937& rng) {
  Value(g->add_input(), "x", {rows, d});
  Value(g->add_output(), "y", {rows, d});
  QuantizationParams(g, 1.0 / 127 / std::sqrt(double(d)));
  Weight(g, "w1", {d, 4 * d}, rng);
  Weight(g, "w2", {4 * d, d}, rng);
  Node(g, "QuantizeLinear", {"x", "x_scale", "x_zp"}, "xq");
  Node(g, "QLinearMatMul", {"xq", "x_scale", "x_zp", "w1", "w_scale", "w_zp", "h_scale", "h_zp"}, "h");
  Node(g, "QLinearMatMul", {"h", "h_scale", "h_zp", "w2", "w_scale", "w_zp", "y_scale", "y_zp"}, "yq");
  Node(g, "DequantizeLinear", {"yq", "y_scale", "y_zp"}, "y");
}

void IntsAttribute(onnx::NodeProto* n, const char* name, std::vector<int64_t> values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

// Two 3x3 convs, pad 1; `groups` 1 (dense) or c (depthwise).
void Convs(onnx::GraphProto* g, int64_t c, int64_t size, int64_t groups, std::mt19937& rng) {
  Value(g->add_input(), "x", {1, c, size, size});
  Value(g->add_output(), "y", {1, c, size, size});
  const int64_t c_group = c / groups;
  QuantizationParams(g, 1.0 / 127 / std::sqrt(9.0 * double(c_group)));
  Weight(g, "w1", {c, c_group, 3, 3}, rng);
  Weight(g, "w2", {c, c_group, 3, 3}, rng);
  Node(g, "QuantizeLinear", {"x", "x_scale", "x_zp"}, "xq");
  for (auto* conv : {Node(g, "QLinearConv", {"xq", "x_scale", "x_zp", "w1", "w_scale", "w_zp", "h_scale", "h_zp"}, "h"),
                     Node(g, "QLinearConv", {"h", "h_scale", "h_zp", "w2", "w_scale", "w_zp", "y_scale", "y_zp"}, "yq")}) {
    IntsAttribute(conv, "pads", {1, 1, 1, 1});
    if (groups > 1) {
      auto* group = conv->add_attribute();
      group->set_name("group");
      group->set_type(onnx::AttributeProto::INT);
      group->set_i(groups);
    }
  }
  Node(g, "DequantizeLinear", {"yq", "y_scale", "y_zp"}, "y");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc > 1 ? argv[1] : "";
  if (argc < 3 || (kind != "mlp" && kind != "convs" && kind != "depthwise")) {
    std::fprintf(stderr,
                 "usage: %s mlp OUT.onnx [rows] [d]\n       %s convs OUT.onnx [c] [size]\n"
                 "       %s depthwise OUT.onnx [c] [size]\n",
                 argv[0], argv[0], argv[0]);
    return 2;
  }
  const bool mlp = kind == "mlp";
  const int64_t a = argc > 3 ? std::atoll(argv[3]) : (mlp ? 64 : kind == "convs" ? 64 : 144),
                b = argc > 4 ? std::atoll(argv[4]) : (mlp ? 768 : 56);
  std::mt19937 rng(7);
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("tunefarm make_quantized_model");
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("quantized_" + kind);
  if (mlp) {
    Mlp(g, a, b, rng);
  } else {
    Convs(g, a, b, kind == "depthwise" ? a : 1, rng);
  }
  std::ofstream out(argv[2], std::ios::binary);
  if (!m.SerializeToOstream(&out)) {
    std::fprintf(stderr, "cannot write %s\n", argv[2]);
    return 1;
  }
  std::printf("%s: quantized %s (%lld, %lld)\n", argv[2], kind.c_str(), static_cast<long long>(a), static_cast<long long>(b));
  return 0;
}
