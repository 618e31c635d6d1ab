// Seed helper: rewrites a model so that every large initializer becomes a graph input of the same
// type and shape. The graph structure (and the small shape constants the importer folds) stays,
// while a 47 MB resnet18 shrinks to a few KB, a size libFuzzer can mutate thousands of times a
// second. Usage: strip_weights in.onnx out.onnx
#include <fstream>
#include <iostream>
#include <sstream>

#include "onnx/onnx_pb.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: strip_weights in.onnx out.onnx\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  onnx::ModelProto m;
  if (!m.ParseFromString(ss.str())) {
    std::cerr << argv[1] << ": not an ONNX model\n";
    return 1;
  }
  auto* g = m.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (const auto& t : g->initializer()) {
    int64_t count = 1;
    for (int64_t d : t.dims()) count *= d;
    if (count <= 64) {  // shape constants, scalars: keep, the importer folds them
      *kept.Add() = t;
      continue;
    }
    // IR < 4 lists initializers as inputs too; do not add the name twice.
    bool listed = false;
    for (const auto& v : g->input()) listed = listed || v.name() == t.name();
    if (listed) continue;
    auto* v = g->add_input();
    v->set_name(t.name());
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    for (int64_t d : t.dims()) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  g->mutable_initializer()->Swap(&kept);
  std::ofstream out(argv[2], std::ios::binary);
  if (!m.SerializeToOstream(&out)) return 1;
  return 0;
}
