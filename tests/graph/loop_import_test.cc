// Loop and Scan, unrolled at import (onnx_loops.cc), against the loops written out in C++ on
// random values: a for loop, a loop its condition stops early, Scan's reverse directions and
// non-zero axes. With every input an initializer the import folds the unrolled graph, so the
// outputs are constants. Then what cannot be unrolled: a trip count or condition only known at
// run time, a loop too long to unroll, one that never ends.
#include <gtest/gtest.h>


#include "compiler/frontend/onnx_importer.h"
#include "tests/graph/random_values.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

using Vec = std::vector<double>;

void AddTensor(onnx::GraphProto* g, const std::string& name, onnx::TensorProto::DataType type,
               std::vector<int64_t> dims, const Vec& values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  for (double v : values) {
    if (type == onnx::TensorProto::FLOAT) t->add_float_data(static_cast<float>(v));
    else t->add_int64_data(static_cast<int64_t>(v));
  }
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in,
                         std::vector<std::string> out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  for (const auto& s : in) n->add_input(s);
  for (const auto& s : out) n->add_output(s);
  return n;
}

void SetInts(onnx::NodeProto* n, const char* name, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void SetInt(onnx::NodeProto* n, const char* name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

onnx::GraphProto* AddBody(onnx::NodeProto* n, std::vector<std::string> inputs, std::vector<std::string> outputs) {
  auto* a = n->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  auto* b = a->mutable_g();
  for (const auto& s : inputs) b->add_input()->set_name(s);
  for (const auto& s : outputs) b->add_output()->set_name(s);
  return b;
}

void AddFloatInput(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims) {
  auto* in = g->add_input();
  in->set_name(name);
  auto* t = in->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::ModelProto NewModel(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  return m;
}

// The folded value of every graph output, flattened.
std::vector<Vec> FoldedOutputs(const onnx::ModelProto& m) {
  auto graph = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
  EXPECT_TRUE(graph.ok()) << graph.status();
  std::vector<Vec> out;
  if (!graph.ok()) return out;
  for (const graph::NodeEntry& e : graph->outputs()) {
    auto it = graph->params().find(graph->node(e.node).name);
    EXPECT_TRUE(it != graph->params().end()) << "an output did not fold";
    if (it == graph->params().end()) return {};
    Vec v;
    for (int64_t k = 0; k < it->second.NumElements(); ++k) v.push_back(it->second.GetDouble(k));
    out.push_back(v);
  }
  return out;
}

Vec Random(int64_t n, uint32_t seed) { return testing::RandomFloat32Values(n, seed); }

void ExpectNear(const Vec& got, const Vec& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << what << " element " << i;
}

// y = Loop(M, cond, y0): y_out = y_in * 2 + float(iter); the scan output stacks every y_out; the
// body's condition output is iter < stop_below (ignored without a cond input).
onnx::ModelProto LoopModel(int64_t trips, bool with_cond, int64_t stop_below, const Vec& y0) {
  onnx::ModelProto m = NewModel(13);
  auto* g = m.mutable_graph();
  AddTensor(g, "M", onnx::TensorProto::INT64, {}, {static_cast<double>(trips)});
  AddTensor(g, "y0", onnx::TensorProto::FLOAT, {static_cast<int64_t>(y0.size())}, y0);
  if (with_cond) {
    AddTensor(g, "one", onnx::TensorProto::INT64, {}, {1});
    AddTensor(g, "zero", onnx::TensorProto::INT64, {}, {0});
    AddNode(g, "Less", {"zero", "one"}, {"go"});  // true, folded
  }
  auto* loop = AddNode(g, "Loop", {"M", with_cond ? "go" : "", "y0"}, {"y", "ys"});
  auto* b = AddBody(loop, {"iter", "cond_in", "y_in"}, {"cond_out", "y_out", "y_scan"});
  AddTensor(b, "two", onnx::TensorProto::FLOAT, {}, {2});
  AddTensor(b, "stop", onnx::TensorProto::INT64, {}, {static_cast<double>(stop_below)});
  SetInt(AddNode(b, "Cast", {"iter"}, {"iter_f"}), "to", onnx::TensorProto::FLOAT);
  AddNode(b, "Mul", {"y_in", "two"}, {"doubled"});
  AddNode(b, "Add", {"doubled", "iter_f"}, {"y_out"});
  AddNode(b, "Identity", {"y_out"}, {"y_scan"});
  AddNode(b, "Less", {"iter", "stop"}, {"cond_out"});
  g->add_output()->set_name("y");
  g->add_output()->set_name("ys");
  return m;
}

// The loop written out: the final y and the stacked per-iteration ys.
std::pair<Vec, Vec> LoopReference(int64_t trips, bool with_cond, int64_t stop_below, Vec y) {
  Vec ys;
  for (int64_t i = 0; i < trips; ++i) {
    for (double& v : y) v = static_cast<float>(static_cast<float>(v * 2) + static_cast<float>(i));
    ys.insert(ys.end(), y.begin(), y.end());
    if (with_cond && !(i < stop_below)) break;
  }
  return {y, ys};
}

TEST(LoopImport, AForLoopUnrollsItsTripCount) {
  const Vec y0 = Random(3, 1);
  auto got = FoldedOutputs(LoopModel(4, /*with_cond=*/false, /*stop_below=*/0, y0));
  auto [y, ys] = LoopReference(4, false, 0, y0);
  ASSERT_EQ(got.size(), 2u);
  ExpectNear(got[0], y, "final y");
  ExpectNear(got[1], ys, "stacked ys");
}

TEST(LoopImport, TheBodysConditionStopsItEarly) {
  const Vec y0 = Random(2, 2);
  // cond_out = iter < 2: iterations 0, 1 and 2 run, then the loop stops, well before M = 10.
  auto got = FoldedOutputs(LoopModel(10, /*with_cond=*/true, /*stop_below=*/2, y0));
  auto [y, ys] = LoopReference(10, true, 2, y0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].size(), 3 * y0.size());
  ExpectNear(got[0], y, "final y");
  ExpectNear(got[1], ys, "stacked ys");
}

TEST(LoopImport, ARuntimeCarriedValueGivesOneCopyOfTheBodyPerIteration) {
  onnx::ModelProto m = LoopModel(5, false, 0, {0, 0, 0});
  auto* g = m.mutable_graph();
  g->mutable_initializer()->RemoveLast();  // y0 becomes a graph input
  AddFloatInput(g, "y0", {3});
  auto graph = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto counts = graph->OpCounts();
  EXPECT_EQ(counts["Mul"], 5);
  EXPECT_EQ(counts["Add"], 5);
}

std::string ImportError(const onnx::ModelProto& m, const ImportOptions& options = {}) {
  auto graph = ImportOnnxBytes(m.SerializeAsString(), options, "model.onnx");
  EXPECT_FALSE(graph.ok());
  return graph.ok() ? "" : std::string(graph.status().message());
}

TEST(LoopImport, WhatCannotBeUnrolledIsRefusedWithTheReason) {
  {  // M is a graph input: bind it
    onnx::ModelProto m = LoopModel(3, false, 0, {1});
    auto* g = m.mutable_graph();
    g->mutable_initializer()->DeleteSubrange(0, 1);
    auto* in = g->add_input();
    in->set_name("M");
    in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    in->mutable_type()->mutable_tensor_type()->mutable_shape();  // a scalar
    EXPECT_NE(ImportError(m).find("--bind M="), std::string::npos) << ImportError(m);
    ImportOptions bound;
    bound.constant_inputs["M"] = graph::HostTensor::FromInt64s({2}, {});
    EXPECT_TRUE(ImportOnnxBytes(m.SerializeAsString(), bound, "model.onnx").ok());
  }
  {  // the condition depends on a runtime value
    onnx::ModelProto m = LoopModel(3, true, 0, {0});
    auto* g = m.mutable_graph();
    g->mutable_initializer()->DeleteSubrange(1, 1);  // y0
    AddFloatInput(g, "y0", {1});
    auto* body = g->mutable_node(1)->mutable_attribute(0)->mutable_g();
    auto* cond = body->mutable_node(body->node_size() - 1);
    cond->set_op_type("Greater");
    cond->set_input(0, "y_in");
    cond->set_input(1, "two");
    EXPECT_NE(ImportError(m).find("computed at run time"), std::string::npos) << ImportError(m);
  }
  EXPECT_NE(ImportError(LoopModel(100000, false, 0, {1})).find("more than 4096 iterations"), std::string::npos);
  {  // neither M nor cond
    onnx::ModelProto m = LoopModel(3, false, 0, {1});
    m.mutable_graph()->mutable_node(0)->set_input(0, "");
    EXPECT_NE(ImportError(m).find("never ends"), std::string::npos) << ImportError(m);
  }
}

TEST(LoopImport, NestedLoopsCannotUnrollWithoutBound) {
  // 1000 x 1000 iterations, each loop within the per-loop limit: the copies multiply.
  onnx::ModelProto m = NewModel(13);
  auto* g = m.mutable_graph();
  AddTensor(g, "M", onnx::TensorProto::INT64, {}, {1000});
  AddFloatInput(g, "y0", {1});
  auto* outer = AddNode(g, "Loop", {"M", "", "y0"}, {"y"});
  auto* ob = AddBody(outer, {"i", "c", "a"}, {"c_out", "a_out"});
  AddNode(ob, "Identity", {"c"}, {"c_out"});
  auto* inner = AddNode(ob, "Loop", {"M", "", "a"}, {"a_out"});
  auto* ib = AddBody(inner, {"j", "d", "b"}, {"d_out", "b_out"});
  AddNode(ib, "Identity", {"d"}, {"d_out"});
  AddNode(ib, "Neg", {"b"}, {"b_out"});
  g->add_output()->set_name("y");
  EXPECT_NE(ImportError(m).find("copies more than 131072 nodes"), std::string::npos) << ImportError(m);
}

// Scan (opset 9+) over x [2, T] along axis 1, read back to front: s_out = s_in * 0.5 + x_t,
// y_t = s_out * s_out, stacked along axis 1 back to front.
onnx::ModelProto ScanModel(int64_t steps, const Vec& s0, const Vec& x) {
  onnx::ModelProto m = NewModel(11);
  auto* g = m.mutable_graph();
  AddTensor(g, "s0", onnx::TensorProto::FLOAT, {2}, s0);
  AddTensor(g, "x", onnx::TensorProto::FLOAT, {2, steps}, x);
  auto* scan = AddNode(g, "Scan", {"s0", "x"}, {"s", "y"});
  SetInt(scan, "num_scan_inputs", 1);
  SetInts(scan, "scan_input_axes", {1});
  SetInts(scan, "scan_input_directions", {1});
  SetInts(scan, "scan_output_axes", {-1});
  SetInts(scan, "scan_output_directions", {1});
  auto* b = AddBody(scan, {"s_in", "x_t"}, {"s_out", "y_t"});
  AddTensor(b, "half", onnx::TensorProto::FLOAT, {}, {0.5});
  AddNode(b, "Mul", {"s_in", "half"}, {"scaled"});
  AddNode(b, "Add", {"scaled", "x_t"}, {"s_out"});
  AddNode(b, "Mul", {"s_out", "s_out"}, {"y_t"});
  g->add_output()->set_name("s");
  g->add_output()->set_name("y");
  return m;
}

TEST(ScanImport, ReverseDirectionsAndNonZeroAxes) {
  const int64_t T = 4;
  const Vec s0 = Random(2, 3), x = Random(2 * T, 4);
  auto got = FoldedOutputs(ScanModel(T, s0, x));
  Vec s = s0, y(2 * T);
  for (int64_t t = 0; t < T; ++t) {
    const int64_t read = T - 1 - t, written = T - 1 - t;  // both directions reversed
    for (int c = 0; c < 2; ++c) {
      s[c] = static_cast<float>(static_cast<float>(s[c] * 0.5) + x[c * T + read]);
      y[c * T + written] = static_cast<float>(s[c] * s[c]);
    }
  }
  ASSERT_EQ(got.size(), 2u);
  ExpectNear(got[0], s, "final state");
  ExpectNear(got[1], y, "scan output");
}

TEST(ScanImport, MismatchedStepsAndSequenceLengthsAreRefused) {
  onnx::ModelProto m = NewModel(11);
  auto* g = m.mutable_graph();
  AddTensor(g, "s0", onnx::TensorProto::FLOAT, {2}, {0, 0});
  AddTensor(g, "a", onnx::TensorProto::FLOAT, {3, 2}, Random(6, 5));
  AddTensor(g, "b", onnx::TensorProto::FLOAT, {4, 2}, Random(8, 6));
  auto* scan = AddNode(g, "Scan", {"s0", "a", "b"}, {"s"});
  SetInt(scan, "num_scan_inputs", 2);
  auto* body = AddBody(scan, {"s_in", "a_t", "b_t"}, {"s_out"});
  AddNode(body, "Sum", {"s_in", "a_t", "b_t"}, {"s_out"});
  g->add_output()->set_name("s");
  EXPECT_NE(ImportError(m).find("the scan inputs have 3 and 4 steps"), std::string::npos) << ImportError(m);

  // Opset 8 (batched) with sequence_lens given.
  onnx::ModelProto old = NewModel(8);
  g = old.mutable_graph();
  AddTensor(g, "lens", onnx::TensorProto::INT64, {1}, {2});
  AddTensor(g, "s0", onnx::TensorProto::FLOAT, {1, 2}, {0, 0});
  AddTensor(g, "x", onnx::TensorProto::FLOAT, {1, 2, 2}, {1, 2, 3, 4});
  auto* s8 = AddNode(g, "Scan", {"lens", "s0", "x"}, {"s"});
  SetInt(s8, "num_scan_inputs", 1);
  body = AddBody(s8, {"s_in", "x_t"}, {"s_out"});
  AddNode(body, "Add", {"s_in", "x_t"}, {"s_out"});
  g->add_output()->set_name("s");
  EXPECT_NE(ImportError(old).find("sequence_lens"), std::string::npos) << ImportError(old);
}

}  // namespace
}  // namespace tunefarm::frontend
