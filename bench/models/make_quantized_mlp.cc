// Writes a quantized two-layer MLP in ONNX's QOperator form, the shape of a quantized
// transformer's feed-forward block: x float [rows, d] -> QuantizeLinear (uint8) -> QLinearMatMul
// by int8 W1 [d, 4d] -> QLinearMatMul by int8 W2 [4d, d] -> DequantizeLinear -> float. Weights
// and scales are seeded random, so the file is the same on every run. The int8 benchmark
// (model_bench.sh with this file) times it against ONNX Runtime, whose QLinearMatMul is its own
// VNNI kernel.
//
// usage: make_quantized_mlp OUT.onnx [rows (64)] [d (768)]
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

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

void Weight(onnx::GraphProto* g, const std::string& name, int64_t k, int64_t n, std::mt19937& rng) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT8);
  t->add_dims(k);
  t->add_dims(n);
  std::string bytes(k * n, '\0');
  std::uniform_int_distribution<int> value(-127, 127);
  for (char& b : bytes) b = static_cast<char>(value(rng));
  t->set_raw_data(bytes);
}

void Node(onnx::GraphProto* g, const std::string& op, std::initializer_list<const char*> in, const char* out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(out);
  for (const char* i : in) n->add_input(i);
  n->add_output(out);
}

void Value(onnx::ValueInfoProto* v, const char* name, int64_t rows, int64_t cols) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_value(rows);
  t->mutable_shape()->add_dim()->set_dim_value(cols);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.onnx [rows] [d]\n", argv[0]);
    return 2;
  }
  const int64_t rows = argc > 2 ? std::atoll(argv[2]) : 64, d = argc > 3 ? std::atoll(argv[3]) : 768;
  std::mt19937 rng(7);
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("tunefarm make_quantized_mlp");
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("quantized_mlp");
  Value(g->add_input(), "x", rows, d);
  Value(g->add_output(), "y", rows, d);
  const double x_scale = 2.0 / 255, h_scale = 0.05, y_scale = 0.05, w_scale = 1.0 / 127 / std::sqrt(double(d));
  Scalar(g, "x_scale", onnx::TensorProto::FLOAT, x_scale);
  Scalar(g, "x_zp", onnx::TensorProto::UINT8, 128);
  Scalar(g, "w_scale", onnx::TensorProto::FLOAT, w_scale);
  Scalar(g, "w_zp", onnx::TensorProto::INT8, 0);
  Scalar(g, "h_scale", onnx::TensorProto::FLOAT, h_scale);
  Scalar(g, "h_zp", onnx::TensorProto::UINT8, 128);
  Scalar(g, "y_scale", onnx::TensorProto::FLOAT, y_scale);
  Scalar(g, "y_zp", onnx::TensorProto::UINT8, 128);
  Weight(g, "w1", d, 4 * d, rng);
  Weight(g, "w2", 4 * d, d, rng);
  Node(g, "QuantizeLinear", {"x", "x_scale", "x_zp"}, "xq");
  Node(g, "QLinearMatMul", {"xq", "x_scale", "x_zp", "w1", "w_scale", "w_zp", "h_scale", "h_zp"}, "h");
  Node(g, "QLinearMatMul", {"h", "h_scale", "h_zp", "w2", "w_scale", "w_zp", "y_scale", "y_zp"}, "yq");
  Node(g, "DequantizeLinear", {"yq", "y_scale", "y_zp"}, "y");
  std::ofstream out(argv[1], std::ios::binary);
  if (!m.SerializeToOstream(&out)) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("%s: quantized MLP, x [%lld, %lld], W1 [%lld, %lld], W2 [%lld, %lld]\n", argv[1],
              static_cast<long long>(rows), static_cast<long long>(d), static_cast<long long>(d),
              static_cast<long long>(4 * d), static_cast<long long>(4 * d), static_cast<long long>(d));
  return 0;
}
