// Values that reach the importer's converters and the constant evaluator as numbers (a Range's
// bounds, a window's size, a Split's sizes, an input-less op's output size) are checked before
// they become shapes or allocations: each bad one is an error naming it, never a crash, an
// undefined cast or an exhausted memory. Also the edge values those ops define (NaN in TopK, a
// one-point symmetric window).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/strings.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/graph/node_interpreter.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

using graph::Attrs;
using graph::Graph;
using graph::HostTensor;
using te::DType;

// A model with one node `op`; its inputs are initializers named after them, or float graph inputs.
struct ModelBuilder {
  onnx::ModelProto m;
  onnx::NodeProto* node;

  ModelBuilder(const std::string& op, int opset) {
    m.set_ir_version(8);
    m.add_opset_import()->set_version(opset);
    node = m.mutable_graph()->add_node();
    node->set_name("n0");
    node->set_op_type(op);
    node->add_output("y");
    m.mutable_graph()->add_output()->set_name("y");
  }
  void FloatInput(const std::string& name, std::vector<int64_t> shape) {
    auto* x = m.mutable_graph()->add_input();
    x->set_name(name);
    auto* tt = x->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
    node->add_input(name);
  }
  void ScalarInput(const std::string& name, double v, onnx::TensorProto::DataType type) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    if (type == onnx::TensorProto::INT64) t->add_int64_data(static_cast<int64_t>(v));
    else t->add_float_data(static_cast<float>(v));
    node->add_input(name);
  }
  void IntsInput(const std::string& name, std::vector<int64_t> values) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    node->add_input(name);
  }
  void Attr(const std::string& name, const std::string& value) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  }
  void Attr(const std::string& name, int64_t value) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  std::string Import() const {
    auto g = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
    return g.ok() ? "ok" : std::string(g.status().message());
  }
};

void ExpectError(const std::string& message, const std::string& needle) {
  EXPECT_NE(message.find(needle), std::string::npos) << message;
  std::printf("  error: %s\n", message.c_str());
}

ModelBuilder Range(double start, double limit, double delta, onnx::TensorProto::DataType type) {
  ModelBuilder b("Range", 11);
  b.ScalarInput("start", start, type);
  b.ScalarInput("limit", limit, type);
  b.ScalarInput("delta", delta, type);
  return b;
}

TEST(ImportLimits, AnInputlessOpTooLargeToFoldIsAnErrorBeforeAnyAllocation) {
  // 2^28 float32 elements (1 GB, under the 4 GB a tensor may have): refused by size, before the
  // interpreter allocates the output.
  ExpectError(Range(0, std::ldexp(1.0, 28), 1, onnx::TensorProto::FLOAT).Import(), "larger than an import-time constant may be");
  EXPECT_EQ(Range(0, 10, 1, onnx::TensorProto::FLOAT).Import(), "ok");
}

TEST(ImportLimits, RangeBoundsMustBeFiniteAndExactForIntegers) {
  const double inf = std::numeric_limits<double>::infinity();
  ExpectError(Range(0, inf, 1, onnx::TensorProto::FLOAT).Import(), "too many elements");
  ExpectError(Range(0, std::nan(""), 1, onnx::TensorProto::FLOAT).Import(), "too many elements");
  ExpectError(Range(std::ldexp(1.0, 60), std::ldexp(1.0, 60) + 8, 1, onnx::TensorProto::INT64).Import(),
              "beyond 2^53");
}

TEST(ImportLimits, WindowSizeAndOneHotDepthMustBeUsableSizes) {
  for (double size : {std::nan(""), 1e300}) {
    ModelBuilder b("HannWindow", 17);
    b.ScalarInput("size", size, onnx::TensorProto::FLOAT);
    ExpectError(b.Import(), "is not a usable size");
  }
  ModelBuilder one_hot("OneHot", 11);
  one_hot.FloatInput("indices", {3});
  one_hot.ScalarInput("depth", std::numeric_limits<double>::infinity(), onnx::TensorProto::FLOAT);
  one_hot.IntsInput("values", {0, 1});
  ExpectError(one_hot.Import(), "depth inf is not a usable size");
}

TEST(ImportLimits, SplitSizesThatOverflowAreAnError) {
  // The two sizes sum to the extent 4 only after wrapping around int64.
  ModelBuilder b("Split", 13);
  b.FloatInput("x", {4});
  b.IntsInput("split", {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min() + 4});
  b.node->add_output("y2");
  ExpectError(b.Import(), "do not cover axis 0");
}

TEST(ImportLimits, AnEmptyConcatInputMustStillFitTheOthers) {
  ModelBuilder fits("Concat", 13);
  fits.FloatInput("a", {2, 3});
  fits.FloatInput("empty", {0, 3});
  fits.Attr("axis", int64_t{0});
  EXPECT_EQ(fits.Import(), "ok");
  ModelBuilder wrong_rank("Concat", 13);
  wrong_rank.FloatInput("a", {2, 3});
  wrong_rank.FloatInput("empty", {0});
  wrong_rank.Attr("axis", int64_t{0});
  ExpectError(wrong_rank.Import(), "(op Concat)");
}

TEST(ImportLimits, BitShiftIsCheckedAtImport) {
  auto shift = [](const std::string& direction, onnx::TensorProto::DataType type) {
    ModelBuilder b("BitShift", 11);
    for (const char* name : {"x", "s"}) {
      auto* v = b.m.mutable_graph()->add_input();
      v->set_name(name);
      v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
      v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
      b.node->add_input(name);
    }
    b.Attr("direction", direction);
    return b.Import();
  };
  EXPECT_EQ(shift("LEFT", onnx::TensorProto::UINT32), "ok");
  ExpectError(shift("UP", onnx::TensorProto::UINT32), "direction 'UP' is neither LEFT nor RIGHT");
  ExpectError(shift("RIGHT", onnx::TensorProto::INT32), "shifts unsigned integers");
}

TEST(ImportLimits, AnOpOlderThanItsFirstConverterIsNamedUnsupported) {
  // Range has no opset-10 meaning; the same-named graph op used to complain about its inputs.
  ModelBuilder b("Range", 10);
  b.ScalarInput("start", 0, onnx::TensorProto::FLOAT);
  b.ScalarInput("limit", 4, onnx::TensorProto::FLOAT);
  b.ScalarInput("delta", 1, onnx::TensorProto::FLOAT);
  ExpectError(b.Import(), "(op Range): unsupported before opset 11 (the model's is 10)");
}

TEST(ImportLimits, ResizeAndDftTablesAreBoundedBeforeTheyAreBuilt) {
  // A cubic Resize of one element to 2^32 columns would need 2^34 table entries.
  ModelBuilder resize("Resize", 13);
  resize.FloatInput("x", {1, 1});
  resize.node->add_input("");
  resize.node->add_input("");
  resize.IntsInput("sizes", {1, int64_t{1} << 32});
  resize.Attr("mode", std::string("cubic"));
  ExpectError(resize.Import(), "the table of axis 1");
  // A DFT of length 2^15 needs two 2^30-entry matrices.
  ModelBuilder dft("DFT", 17);
  dft.FloatInput("x", {1, 8, 1});
  dft.ScalarInput("len", 32768, onnx::TensorProto::INT64);
  ExpectError(dft.Import(), "this DFT is a matmul, not an FFT");
}

TEST(ImportLimits, UnpoolAndStftOperandsAreNamedErrors) {
  ModelBuilder unpool("MaxUnpool", 11);
  unpool.FloatInput("x", {1, 1, 2, 2});
  auto* idx = unpool.m.mutable_graph()->add_input();
  idx->set_name("idx");
  idx->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  for (int64_t d : {1, 1, 2, 2}) idx->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  unpool.node->add_input("idx");
  auto* k = unpool.node->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : {2, 2}) k->add_ints(v);
  auto* st = unpool.node->add_attribute();
  st->set_name("strides");
  st->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : {int64_t{1} << 62, int64_t{1}}) st->add_ints(v);
  ExpectError(unpool.Import(), "kernel_shape and strides must be in [1, 2^20]");

  ModelBuilder stft("STFT", 17);
  stft.FloatInput("signal", {1, 8, 1});
  stft.ScalarInput("step", 0, onnx::TensorProto::INT64);
  ExpectError(stft.Import(), "frame_step 0 is not positive");
}

TEST(ImportLimits, RecurrentSizesAndOutputsAreChecked) {
  auto gru = [](int64_t hidden, int outputs) {
    ModelBuilder b("GRU", 14);
    b.FloatInput("x", {2, 1, 3});
    b.FloatInput("w", {1, 3 * std::min<int64_t>(hidden, 4), 3});
    b.FloatInput("r", {1, 3 * std::min<int64_t>(hidden, 4), std::min<int64_t>(hidden, 4)});
    b.Attr("hidden_size", hidden);
    for (int i = 1; i < outputs; ++i) b.node->add_output(StrCat("y", i));
    return b.Import();
  };
  EXPECT_EQ(gru(4, 2), "ok");
  ExpectError(gru(int64_t{1} << 62, 1), "hidden_size must be given, positive and at most 2^20");
  ExpectError(gru(4, 3), "GRU has two outputs");
}

// Upsample (opsets 7 to 9) and Resize 10 have no conformance cases: asymmetric coordinates,
// nearest rounding down, `linear` (Upsample 7 also `bilinear`). The input is a constant, so the
// resize folds at import and its values are the graph's output.
TEST(ImportLimits, LegacyUpsampleAndResize10UseAsymmetricCoordinates) {
  auto upsample = [](const std::string& op, int opset, const std::string& mode) {
    ModelBuilder b(op, opset);
    auto* x = b.m.mutable_graph()->add_initializer();
    x->set_name("x");
    x->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : {1, 3}) x->add_dims(d);
    for (float v : {1.f, 2.f, 4.f}) x->add_float_data(v);
    b.node->add_input("x");
    if (opset < 9) {
      auto* a = b.node->add_attribute();
      a->set_name("scales");
      a->set_type(onnx::AttributeProto::FLOATS);
      for (float s : {1.f, 2.f}) a->add_floats(s);
    } else {
      auto* s = b.m.mutable_graph()->add_initializer();
      s->set_name("scales");
      s->set_data_type(onnx::TensorProto::FLOAT);
      s->add_dims(2);
      for (float v : {1.f, 2.f}) s->add_float_data(v);
      b.node->add_input("scales");
    }
    b.Attr("mode", mode);
    auto g = ImportOnnxBytes(b.m.SerializeAsString(), {}, "model.onnx");
    EXPECT_TRUE(g.ok()) << g.status();
    if (!g.ok() || g->params().size() != 1) return std::vector<double>{};
    const HostTensor& y = g->params().begin()->second;
    std::vector<double> values;
    for (int64_t i = 0; i < y.NumElements(); ++i) values.push_back(y.GetDouble(i));
    return values;
  };
  const std::vector<double> nearest = {1, 1, 2, 2, 4, 4}, linear = {1, 1.5, 2, 3, 4, 4};
  EXPECT_EQ(upsample("Upsample", 7, "nearest"), nearest);
  EXPECT_EQ(upsample("Upsample", 7, "bilinear"), linear);
  EXPECT_EQ(upsample("Upsample", 9, "linear"), linear);
  EXPECT_EQ(upsample("Resize", 10, "nearest"), nearest);
  EXPECT_EQ(upsample("Resize", 10, "linear"), linear);
}

TEST(ImportLimits, AShapeOperandComputedFromAnInputSuggestsBindingThatInput) {
  // limit = n + 1, n a runtime int64 graph input: the error names n, and binding it imports.
  ModelBuilder b("Range", 11);
  b.ScalarInput("start", 0, onnx::TensorProto::INT64);
  auto* n = b.m.mutable_graph()->add_input();
  n->set_name("n");
  n->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  n->mutable_type()->mutable_tensor_type()->mutable_shape();
  auto* one = b.m.mutable_graph()->add_initializer();
  one->set_name("one");
  one->set_data_type(onnx::TensorProto::INT64);
  one->add_int64_data(1);
  auto* add = b.m.mutable_graph()->add_node();
  add->set_op_type("Add");
  add->add_input("n");
  add->add_input("one");
  add->add_output("limit");
  b.node->add_input("limit");
  b.ScalarInput("delta", 1, onnx::TensorProto::INT64);
  // The Add must come first in the node list.
  b.m.mutable_graph()->mutable_node()->SwapElements(0, 1);
  ExpectError(b.Import(), "limit ('limit') must be a compile-time constant scalar; it is computed from the graph input "
                          "'n': give its value at compile time with --bind n=FILE");
  ImportOptions options;
  options.constant_inputs["n"] = HostTensor::FromInt64s({4}, {});
  auto g = ImportOnnxBytes(b.m.SerializeAsString(), options, "model.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->params().size(), 1u);
  EXPECT_EQ(g->params().begin()->second.ToInt64s(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

// One input-less or one-input node of the graph, interpreted.
absl::StatusOr<std::vector<HostTensor>> Interpret(const std::string& op, const std::vector<const HostTensor*>& in,
                                                  Attrs attrs) {
  Graph g;
  std::vector<graph::NodeEntry> entries;
  for (size_t i = 0; i < in.size(); ++i) entries.push_back(*g.AddInput(StrCat("x", i), {in[i]->dtype, in[i]->shape}));
  auto out = g.AddNode(op, "n", entries, std::move(attrs));
  if (!out.ok()) return out.status();
  return graph::InterpretNode(g.node(out->at(0).node), in);
}

TEST(ImportLimits, TheInterpreterRefusesAHugeOutputWithoutAllocatingIt) {
  Attrs range;
  range.Set("start", 0.0);
  range.Set("delta", 1.0);
  range.Set("count", int64_t{1} << 28);  // 1 GB of float32
  range.Set("dtype", std::string("float32"));
  auto r = Interpret("Range", {}, range);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
}

TEST(ImportLimits, ASymmetricWindowOfOnePointIsOne) {
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    Attrs attrs;
    attrs.Set("size", int64_t{1});
    attrs.Set("periodic", int64_t{0});
    attrs.Set("dtype", std::string("float32"));
    auto r = Interpret(op, {}, attrs);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ((*r)[0].GetDouble(0), 1.0) << op;
  }
}

TEST(ImportLimits, TopKOrdersNaNAboveEveryNumber) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  HostTensor x = HostTensor::FromFloats({1, nan, 3, -2}, {4});
  for (int64_t largest : {1, 0}) {
    Attrs attrs;
    attrs.Set("k", int64_t{2});
    attrs.Set("axis", int64_t{-1});
    attrs.Set("largest", largest);
    attrs.Set("sorted", int64_t{1});
    auto r = Interpret("TopK", {&x}, attrs);
    ASSERT_TRUE(r.ok()) << r.status();
    if (largest == 1) {
      EXPECT_TRUE(std::isnan((*r)[0].GetDouble(0)));
      EXPECT_EQ((*r)[0].GetDouble(1), 3);
      EXPECT_EQ((*r)[1].ToInt64s(), (std::vector<int64_t>{1, 2}));
    } else {
      EXPECT_EQ((*r)[0].GetDouble(0), -2);
      EXPECT_EQ((*r)[0].GetDouble(1), 1);
      EXPECT_EQ((*r)[1].ToInt64s(), (std::vector<int64_t>{3, 0}));
    }
  }
}

}  // namespace
}  // namespace tunefarm::frontend
