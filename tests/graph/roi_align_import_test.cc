// RoiAlign at import: ONNX's default sampling_ratio (0, adaptive) is refused with the reason, a
// fixed one imports, and opset 10 (no coordinate_transformation_mode) reads as output_half_pixel.
#include <gtest/gtest.h>

#include "compiler/frontend/onnx_importer.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

onnx::ModelProto RoiAlignModel(int opset, int64_t sampling_ratio) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  auto* g = m.mutable_graph();
  auto input = [&](const char* name, onnx::TensorProto::DataType type, std::vector<int64_t> dims) {
    auto* in = g->add_input();
    in->set_name(name);
    auto* t = in->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  input("X", onnx::TensorProto::FLOAT, {1, 2, 8, 8});
  input("rois", onnx::TensorProto::FLOAT, {3, 4});
  input("batch_indices", onnx::TensorProto::INT64, {3});
  auto* n = g->add_node();
  n->set_op_type("RoiAlign");
  for (const char* in : {"X", "rois", "batch_indices"}) n->add_input(in);
  n->add_output("Y");
  if (sampling_ratio >= 0) {
    auto* a = n->add_attribute();
    a->set_name("sampling_ratio");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(sampling_ratio);
  }
  g->add_output()->set_name("Y");
  return m;
}

TEST(RoiAlignImport, TheAdaptiveSampleCountIsRefusedWithTheReason) {
  auto g = ImportOnnxBytes(RoiAlignModel(16, -1).SerializeAsString(), {}, "model.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(std::string(g.status().message()).find("sampling_ratio 0 is not in [1, 64]: the adaptive count (0)"),
            std::string::npos)
      << g.status();
}

TEST(RoiAlignImport, AFixedSampleCountImportsAtOpsets10And16) {
  for (int opset : {10, 16}) {
    auto g = ImportOnnxBytes(RoiAlignModel(opset, 2).SerializeAsString(), {}, "model.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    bool found = false;
    for (const graph::Node& node : g->nodes()) {
      if (node.op != "RoiAlign") continue;
      found = true;
      EXPECT_EQ(node.attrs.GetString("coordinate_transformation_mode"), opset == 10 ? "output_half_pixel" : "half_pixel");
      EXPECT_EQ(node.outputs[0].shape, (std::vector<int64_t>{3, 2, 1, 1}));
    }
    EXPECT_TRUE(found) << opset;
  }
}

}  // namespace
}  // namespace tunefarm::frontend
