// If, inlined at import (onnx_control_flow.cc): a runtime cond selects between both branches
// with Where; a cond known at compile time keeps only its branch; branches read outer values and
// their own initializers, and their names cannot collide with the enclosing graph's.
#include <gtest/gtest.h>

#include "compiler/frontend/onnx_importer.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

void AddFloats(onnx::GraphProto* g, const std::string& name, std::vector<float> values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (float v : values) t->add_float_data(v);
}

// y = If(c, then: x + k, else: x * k) where k is the branch's own initializer named "k" (the
// same name in both branches and in the outer graph, which holds another "k").
onnx::ModelProto IfModel(bool mismatched_else = false) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  for (auto [name, type] : {std::pair{"c", onnx::TensorProto::BOOL}, std::pair{"x", onnx::TensorProto::FLOAT}}) {
    auto* in = g->add_input();
    in->set_name(name);
    in->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(std::string(name) == "c" ? 1 : 3);
  }
  AddFloats(g, "k", {100, 100, 100});
  auto* node = g->add_node();
  node->set_op_type("If");
  node->add_input("c");
  node->add_output("y");
  auto branch = [&](const char* attr, const char* op, std::vector<float> k) {
    auto* a = node->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* b = a->mutable_g();
    AddFloats(b, "k", k);
    auto* inner = b->add_node();
    inner->set_op_type(op);
    inner->add_input("x");
    inner->add_input("k");
    inner->add_output("r");
    b->add_output()->set_name("r");
  };
  branch("then_branch", "Add", {1, 2, 3});
  branch("else_branch", mismatched_else ? "Less" : "Mul", {2, 2, 2});  // Less gives bool[3], not float[3]
  g->add_output()->set_name("y");
  return m;
}

TEST(ControlFlowImport, ARuntimeCondSelectsBetweenBothBranches) {
  auto g = ImportOnnxBytes(IfModel().SerializeAsString(), {}, "model.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  auto counts = g->OpCounts();
  EXPECT_EQ(counts["Add"], 1);
  EXPECT_EQ(counts["Mul"], 1);
  EXPECT_EQ(counts["Where"], 1);
  // The branches' "k" are their own, not the outer [100, 100, 100].
  int branch_constants = 0;
  for (const auto& [name, t] : g->params())
    if (t.NumElements() == 3 && t.GetDouble(0) != 100) ++branch_constants;
  EXPECT_EQ(branch_constants, 2);
}

TEST(ControlFlowImport, ACompileTimeCondKeepsOnlyItsBranch) {
  for (bool c : {true, false}) {
    ImportOptions options;
    auto cond = graph::HostTensor::Zeros(te::DType::kBool, {1});
    ASSERT_TRUE(cond.ok());
    cond->SetInt(0, c ? 1 : 0);
    options.constant_inputs["c"] = *cond;
    auto g = ImportOnnxBytes(IfModel().SerializeAsString(), options, "model.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->OpCounts(), (std::map<std::string, int>{{c ? "Add" : "Mul", 1}})) << "cond " << c;
  }
}

TEST(ControlFlowImport, BranchesOfDifferentTypesNeedACompileTimeCond) {
  auto g = ImportOnnxBytes(IfModel(/*mismatched_else=*/true).SerializeAsString(), {}, "model.onnx");
  ASSERT_FALSE(g.ok());
  const std::string message(g.status().message());
  EXPECT_NE(message.find("so they must agree; it is the graph input 'c'"), std::string::npos) << message;
}

}  // namespace
}  // namespace tunefarm::frontend
