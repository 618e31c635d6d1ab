// ONNX importer: the shared models, hostile files, and a parse-only conformance sweep.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "compiler/frontend/onnx_importer.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

namespace fs = std::filesystem;
const std::string kShared = TUNEFARM_SHARED_DIR;

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class ModelTest : public testing::TestWithParam<std::string> {};

TEST_P(ModelTest, ImportsWithStaticTypesAndManifestOutputs) {
  nlohmann::json manifest = nlohmann::json::parse(ReadFile(kShared + "/models/MANIFEST.json"));
  const auto& entry = manifest["models"][GetParam()];
  auto start = std::chrono::steady_clock::now();
  auto g = ImportOnnxFile(kShared + "/models/" + entry["file"].get<std::string>());
  ASSERT_TRUE(g.ok()) << g.status();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (const auto& n : g->nodes()) {
    ASSERT_FALSE(n.outputs.empty()) << n.name;
    for (const auto& t : n.outputs) EXPECT_GE(t.NumElements(), 0) << n.name;
  }
  std::string counts;
  for (const auto& [op, c] : g->OpCounts()) counts += op + ":" + std::to_string(c) + " ";
  std::printf("%s: %zu nodes, %zu params (%lld elements), %.0f ms; %s\n", GetParam().c_str(), g->nodes().size(),
              g->params().size(), static_cast<long long>(g->NumParamElements()), ms, counts.c_str());
  // Constant nodes that feed data (scalars of LayerNorm, attention scaling) become params too.
  EXPECT_GE(g->NumParamElements(), entry["num_params"].get<int64_t>());
  EXPECT_LE(g->NumParamElements(), entry["num_params"].get<int64_t>() + 64);
  ASSERT_EQ(g->outputs().size(), 1u);
  EXPECT_EQ(g->output_names()[0], entry["output_name"].get<std::string>());
  EXPECT_EQ(g->type(g->outputs()[0]).shape, entry["output_shape"].get<std::vector<int64_t>>());
  for (const char* op : {"Shape", "Gather", "Concat", "ConstantOfShape", "Unsqueeze", "Constant"})
    if (GetParam() == "transformer_encoder") { EXPECT_EQ(g->OpCounts().count(op), 0u) << op << " left after import"; }
  for (const auto& n : g->nodes())
    if (n.op == "Reshape") { EXPECT_EQ(n.inputs.size(), 1u); }
}

INSTANTIATE_TEST_SUITE_P(Shared, ModelTest,
                         testing::Values("resnet18", "mobilenet_v2", "squeezenet1_1", "transformer_encoder"));

// A one-node model: y = op(x), x float32[2,2], at `opset`.
onnx::ModelProto SmallModel(int opset, const std::string& op = "Relu") {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(opset);
  auto* g = m.mutable_graph();
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  auto* n = g->add_node();
  n->set_name("n0");
  n->set_op_type(op);
  n->add_input("x");
  n->add_output("y");
  g->add_output()->set_name("y");
  return m;
}

std::string Import(const onnx::ModelProto& m) {
  auto g = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
  return g.ok() ? "ok" : std::string(g.status().message());
}

void ExpectError(const std::string& message, const std::string& needle) {
  EXPECT_NE(message.find(needle), std::string::npos) << message;
  std::printf("  error: %s\n", message.c_str());
}

TEST(ImportTest, SmallModelImports) { EXPECT_EQ(Import(SmallModel(13)), "ok"); }

TEST(ImportTest, TruncatedFile) {
  std::string bytes = ReadFile(kShared + "/models/squeezenet1_1.onnx");
  auto g = ImportOnnxBytes(bytes.substr(0, bytes.size() / 2), {}, "squeezenet-half.onnx");
  ASSERT_FALSE(g.ok());
  ExpectError(std::string(g.status().message()), "squeezenet-half.onnx: not a valid ONNX model");
}

TEST(ImportTest, RandomBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::string bytes(64 + trial * 37, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    auto g = ImportOnnxBytes(bytes, {}, "random.onnx");
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(std::string(g.status().message()).rfind("random.onnx: ", 0), 0u) << g.status();
  }
}

TEST(ImportTest, RawDataSizeMismatch) {
  auto m = SmallModel(13, "Add");
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("b");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(2);
  init->add_dims(2);
  init->set_raw_data(std::string(12, '\0'));
  m.mutable_graph()->mutable_node(0)->add_input("b");
  ExpectError(Import(m), "tensor 'b': raw_data has 12 bytes, shape [2,2] needs 16");
}

TEST(ImportTest, HugeDimsOverflow) {
  auto m = SmallModel(13, "Add");
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("b");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(int64_t{1} << 40);
  init->add_dims(int64_t{1} << 40);
  init->set_raw_data(std::string(16, '\0'));
  m.mutable_graph()->mutable_node(0)->add_input("b");
  ExpectError(Import(m), "too many elements");
}

std::string ImportWithShapes(const onnx::ModelProto& m, std::map<std::string, std::vector<int64_t>> shapes) {
  ImportOptions options;
  options.input_shapes = std::move(shapes);
  options.strict_input_shapes = true;
  auto g = ImportOnnxBytes(m.SerializeAsString(), options, "model.onnx");
  return g.ok() ? "ok" : std::string(g.status().message());
}

// Input shapes: a given shape fills symbolic dims and must agree with what the model fixes; a
// symbolic or negative dim without one names the flag that fixes it.
TEST(ImportTest, InputShapesAreCheckedAgainstTheModel) {
  onnx::ModelProto m = SmallModel(13);
  auto* dims = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(0)->set_dim_param("batch");
  ExpectError(Import(m), "graph input 'x': dimension 0 is 'batch', not a fixed size; give its shape with "
                         "--input-shape x=D,D,...");
  EXPECT_EQ(ImportWithShapes(m, {{"x", {3, 2}}}), "ok");
  ExpectError(ImportWithShapes(m, {{"x", {3, 2, 1}}}), "graph input 'x': the model declares rank 2, --input-shape gives 3");
  ExpectError(ImportWithShapes(m, {{"x", {3, 5}}}), "dimension 1 is fixed at 2 by the model, --input-shape gives 5");
  ExpectError(ImportWithShapes(m, {{"x", {3, 2}}, {"image", {1}}}),
              "a shape is given for 'image', which is not an input of the model (inputs: x)");
  dims->mutable_dim(0)->set_dim_value(-1);
  ExpectError(Import(m), "graph input 'x': dimension 0 is -1 in the model, not a size");
}

TEST(ImportTest, UndefinedInputName) {
  auto m = SmallModel(13);
  m.mutable_graph()->mutable_node(0)->set_input(0, "nope");
  ExpectError(Import(m), "node 'n0' (op Relu): undefined input name 'nope'");
}

TEST(ImportTest, Cycle) {
  auto m = SmallModel(13, "Add");
  auto* g = m.mutable_graph();
  g->mutable_node(0)->add_input("z");
  auto* n = g->add_node();
  n->set_name("n1");
  n->set_op_type("Relu");
  n->add_input("y");
  n->add_output("z");
  ExpectError(Import(m), "the graph has a cycle");
}

TEST(ImportTest, UnsupportedOp) { ExpectError(Import(SmallModel(13, "FooBar")), "node 'n0' (op FooBar): unsupported op"); }

TEST(ImportTest, UnsupportedOpsets) {
  ExpectError(Import(SmallModel(6)), "model.onnx: unsupported opset 6 (supported 7..17)");
  ExpectError(Import(SmallModel(18)), "unsupported opset 18");
}

TEST(ImportTest, ShapeArithmeticIsEvaluated) {
  // y = Reshape(x, Concat(Gather(Shape(x), 0), [-1])) : float32[2,2] → [2,2], no shape ops left.
  auto m = SmallModel(13, "Shape");
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_output(0, "s");
  auto add = [&](const std::string& op, std::vector<std::string> ins, const std::string& out) {
    auto* n = g->add_node();
    n->set_name(out);
    n->set_op_type(op);
    for (auto& i : ins) n->add_input(i);
    n->add_output(out);
    return n;
  };
  auto* c0 = add("Constant", {}, "zero");
  auto* a = c0->add_attribute();
  a->set_name("value_ints");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(0);
  auto* c1 = add("Constant", {}, "minus1");
  auto* b = c1->add_attribute();
  b->set_name("value_ints");
  b->set_type(onnx::AttributeProto::INTS);
  b->add_ints(-1);
  add("Gather", {"s", "zero"}, "d0");
  auto* cat = add("Concat", {"d0", "minus1"}, "target");
  auto* ax = cat->add_attribute();
  ax->set_name("axis");
  ax->set_type(onnx::AttributeProto::INT);
  ax->set_i(0);
  add("Reshape", {"x", "target"}, "y");
  auto graph = ImportOnnxBytes(m.SerializeAsString());
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->OpCounts(), (std::map<std::string, int>{{"Reshape", 1}}));
  std::printf("%s", graph->Dump().c_str());
}

// MaxPool imports as MaxPoolWithIndices when its Indices output is named, else as MaxPool; both
// get auto_pad resolved to pads.
TEST(ImportTest, CastLikeImportsAsACastToTheSecondInputsDType) {
  onnx::ModelProto m = SmallModel(15, "CastLike");
  auto* g = m.mutable_graph();
  auto* like = g->add_input();
  like->set_name("like");
  auto* tt = like->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT16);
  tt->mutable_shape()->add_dim()->set_dim_value(1);
  g->mutable_node(0)->add_input("like");
  auto imported = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->OpCounts(), (std::map<std::string, int>{{"Cast", 1}}));
  EXPECT_EQ(imported->type(imported->outputs()[0]).ToString(), "float16[2,2]");
  g->mutable_node(0)->clear_input();
  g->mutable_node(0)->add_input("x");
  ExpectError(Import(m), "CastLike");  // the second input is required
}

TEST(ImportTest, AHugeBlockSizeIsAnErrorNotACrash) {
  // 2^32 squared wraps to 0 in int64: it was a division by zero.
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
    onnx::ModelProto m = SmallModel(13, op);
    auto* shape = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->add_dim()->set_dim_value(2);
    shape->add_dim()->set_dim_value(2);
    auto* block = m.mutable_graph()->mutable_node(0)->add_attribute();
    block->set_name("blocksize");
    block->set_type(onnx::AttributeProto::INT);
    block->set_i(int64_t{1} << 32);
    ExpectError(Import(m), "blocksize 4294967296 exceeds");
  }
}

TEST(ImportTest, UnnamedClipsWithRuntimeBoundsGetNamesOfTheirOwn) {
  // Each becomes Max then Min; the intermediate's node and value names must not collide.
  onnx::ModelProto m = SmallModel(13, "Clip");
  auto* g = m.mutable_graph();
  for (const char* bound : {"lo", "hi"}) {
    auto* in = g->add_input();
    in->set_name(bound);
    in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    in->mutable_type()->mutable_tensor_type()->mutable_shape();  // a scalar
  }
  onnx::NodeProto* first = g->mutable_node(0);
  first->clear_name();
  first->set_output(0, "y1");
  first->add_input("lo");
  first->add_input("hi");
  onnx::NodeProto* second = g->add_node();
  *second = *first;
  second->set_input(0, "y1");
  second->set_output(0, "y");
  auto imported = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->OpCounts(), (std::map<std::string, int>{{"Max", 2}, {"Min", 2}}));
  std::set<std::string> names;
  for (const graph::Node& n : imported->nodes()) EXPECT_TRUE(names.insert(n.name).second) << "duplicate " << n.name;
}

TEST(ImportTest, MaxPoolWithIndicesOutputImportsAsTheTwoOutputOp) {
  auto import = [](std::vector<std::string> outputs) {
    onnx::ModelProto m = SmallModel(12, "MaxPool");
    auto* g = m.mutable_graph();
    auto* shape = g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->add_dim()->set_dim_value(5);
    shape->add_dim()->set_dim_value(5);
    onnx::NodeProto* n = g->mutable_node(0);
    n->clear_output();
    g->clear_output();
    for (const std::string& o : outputs) {
      n->add_output(o);
      if (!o.empty()) g->add_output()->set_name(o);
    }
    auto* kernel = n->add_attribute();
    kernel->set_name("kernel_shape");
    kernel->set_type(onnx::AttributeProto::INTS);
    kernel->add_ints(3);
    kernel->add_ints(3);
    auto* pad = n->add_attribute();
    pad->set_name("auto_pad");
    pad->set_type(onnx::AttributeProto::STRING);
    pad->set_s("SAME_UPPER");
    auto* order = n->add_attribute();
    order->set_name("storage_order");
    order->set_type(onnx::AttributeProto::INT);
    order->set_i(1);
    return ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
  };
  auto with_indices = import({"y", "i"});
  ASSERT_TRUE(with_indices.ok()) << with_indices.status();
  EXPECT_EQ(with_indices->OpCounts(), (std::map<std::string, int>{{"MaxPoolWithIndices", 1}}));
  ASSERT_EQ(with_indices->outputs().size(), 2u);
  EXPECT_EQ(with_indices->type(with_indices->outputs()[0]).ToString(), "float32[2,2,5,5]");
  EXPECT_EQ(with_indices->type(with_indices->outputs()[1]).ToString(), "int64[2,2,5,5]");
  const graph::Node& pool = with_indices->node(with_indices->outputs()[1].node);
  EXPECT_EQ(pool.attrs.GetInts("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(pool.attrs.GetInt("storage_order"), 1);

  for (std::vector<std::string> outputs : {std::vector<std::string>{"y"}, std::vector<std::string>{"y", ""}}) {
    auto plain = import(outputs);
    ASSERT_TRUE(plain.ok()) << plain.status();
    EXPECT_EQ(plain->OpCounts(), (std::map<std::string, int>{{"MaxPool", 1}}));
    EXPECT_EQ(plain->type(plain->outputs()[0]).ToString(), "float32[2,2,5,5]");
  }
}

TEST(ImportTest, ConformanceSweep) {
  std::string dir = kShared + "/onnx-tests/node";
  // ../shared is part of the checkout contract (CI copies it beside the clone): missing is a failure.
  ASSERT_TRUE(fs::exists(dir)) << dir << " is missing";
  int imported = 0, unsupported = 0, failed = 0;
  std::map<std::string, int> reasons;
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(dir)) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  for (const auto& c : cases) {
    std::string path = (c / "model.onnx").string();
    if (!fs::exists(path)) continue;
    auto g = ImportOnnxFile(path);
    if (g.ok()) {
      ++imported;
      continue;
    }
    std::string msg(g.status().message());
    EXPECT_TRUE(msg.rfind(path, 0) == 0) << msg;
    bool names_node = msg.find("node '") != std::string::npos || msg.find("node producing '") != std::string::npos || msg.find("graph input") != std::string::npos ||
                      msg.find("initializer") != std::string::npos || msg.find("opset") != std::string::npos ||
                      msg.find("graph output") != std::string::npos;
    EXPECT_TRUE(names_node) << msg;
    if (msg.find("unsupported") != std::string::npos || msg.find("not supported") != std::string::npos) {
      ++unsupported;
    } else {
      ++failed;
      std::printf("  error: %s\n", msg.c_str());
    }
  }
  std::printf("conformance sweep: %d imported, %d unsupported, %d errors (of %zu)\n", imported, unsupported, failed,
              cases.size());
  EXPECT_GT(imported, 0);
}

// Inputs found by fuzz/run_fuzz.sh (docs/fuzzing.md) that crashed the importer or tripped a
// sanitizer. Each must now give a clean Status (or a graph that verifies), never a crash.
struct FuzzCase {
  const char* file;
  const char* error;  // expected substring, or nullptr when the model is valid and imports
};

class FuzzRegressionTest : public testing::TestWithParam<FuzzCase> {};

TEST_P(FuzzRegressionTest, ImportsCleanly) {
  std::string path = std::string(TUNEFARM_FUZZ_REGRESSIONS_DIR) + "/" + GetParam().file;
  ASSERT_TRUE(fs::exists(path)) << path;
  auto g = ImportOnnxBytes(ReadFile(path), {}, "fuzz.onnx");
  if (GetParam().error == nullptr) {
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(g->Verify().ok());
    return;
  }
  ASSERT_FALSE(g.ok());
  std::string msg(g.status().message());
  EXPECT_EQ(msg.rfind("fuzz.onnx: ", 0), 0u) << msg;
  ExpectError(msg, GetParam().error);
}

// Same class of bug as reshape_target_overflow, fixed with it: int64 attributes whose arithmetic
// overflowed during shape inference (UB) now give an error.
TEST(ImportTest, HugeShapeOperandsAreErrors) {
  auto with_ints = [](const std::string& op, std::vector<int64_t> values) {
    auto m = SmallModel(13, op);
    auto* init = m.mutable_graph()->add_initializer();
    init->set_name("v");
    init->set_data_type(onnx::TensorProto::INT64);
    init->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) init->add_int64_data(v);
    m.mutable_graph()->mutable_node(0)->add_input("v");
    return Import(m);
  };
  constexpr int64_t kBig = std::numeric_limits<int64_t>::max() / 2 + 1;
  ExpectError(with_ints("Tile", {kBig, 1}), "repeats overflow");
  ExpectError(with_ints("Pad", {kBig, 0, kBig, 0}), "pads overflow");
}

INSTANTIATE_TEST_SUITE_P(
    Fuzz, FuzzRegressionTest,
    testing::Values(
        // Shape with end far below -rank: an empty shape vector; memcpy(nullptr, nullptr, 0) was UB.
        FuzzCase{"shape_of_scalar.onnx", nullptr},
        // A registered op (AveragePool) with no inputs: converters read input 0 past the end (protobuf FATAL).
        FuzzCase{"node_without_inputs.onnx", "(op AveragePool): missing input 0"},
        // Reshape target whose product overflows int64 (UBSan signed-overflow).
        FuzzCase{"reshape_target_overflow.onnx", "has too many elements"}),
    [](const testing::TestParamInfo<FuzzCase>& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('.'));
    });

// Opsets below 7 import when every op's definition is unchanged from the model's opset to 7
// (docs/graph.md lists the table); anything else keeps the unsupported-opset error.
TEST(ImportTest, OldOpsetsImportOnlyUnchangedOps) {
  onnx::ModelProto pool = SmallModel(1, "GlobalAveragePool");
  auto* shape = pool.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->add_dim()->set_dim_value(3);
  auto g = ImportOnnxBytes(pool.SerializeAsString(), {}, "model.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->OpCounts().count("GlobalAveragePool"), 1u);
  EXPECT_EQ(Import(SmallModel(1, "Transpose")), "ok");
  EXPECT_EQ(Import(SmallModel(5, "Identity")), "ok");
  // Still refused: ops not in the table (Relu-6, Add-6 with its broadcast attribute) and an op
  // whose definition at the model's opset predates the one in force at 7 (Concat-1 vs Concat-4).
  ExpectError(Import(SmallModel(6, "Relu")), "unsupported opset 6 (supported 7..17): op Relu");
  ExpectError(Import(SmallModel(6, "Add")), "unsupported opset 6 (supported 7..17): op Add");
  ExpectError(Import(SmallModel(3, "Concat")), "unsupported opset 3 (supported 7..17): op Concat");
  ExpectError(Import(SmallModel(0, "Transpose")), "unsupported opset 0");
}

}  // namespace
}  // namespace tunefarm::frontend
