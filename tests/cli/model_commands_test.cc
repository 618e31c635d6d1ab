// `tunefarm compile|run|inspect|bench` on a small conformance model: input and output file
// formats, binding by name and by position, and the errors a user meets.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/file_read.h"
#include "compiler/frontend/tensor_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_process.h"

namespace tunefarm::cli {
namespace {

using ::testing::HasSubstr;
using testing::CliResult;
using testing::RunTunefarm;
using testing::TempDir;

const std::string kCase = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_add/";

std::vector<float> FloatsOf(const frontend::TensorFile& t) {
  std::vector<float> v(t.bytes.size() / 4);
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

class CliModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    so_ = dir_.File("add.so");
    CliResult r = RunTunefarm({"compile", kCase + "model.onnx", "-o", so_, "--threads", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("wrote " + so_));
    EXPECT_THAT(r.err, HasSubstr("tunefarm compile: kernel 1/1"));  // progress goes to stderr
  }
  TempDir dir_;
  std::string so_;
};

TEST_F(CliModelTest, RunsOnPbInputsAndWritesEveryFormat) {
  const std::string in0 = kCase + "test_data_set_0/input_0.pb", in1 = kCase + "test_data_set_0/input_1.pb";
  auto want = frontend::ReadTensorFile(kCase + "test_data_set_0/output_0.pb", 1 << 20);
  ASSERT_TRUE(want.ok());
  for (const char* ext : {".npy", ".pb", ".bin"}) {
    const std::string out = dir_.File(std::string("sum") + ext);
    CliResult r = RunTunefarm({"run", so_, "--input", in0, "--input", in1, "--output", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto got = frontend::ReadTensorFile(out, 1 << 20);
    ASSERT_TRUE(got.ok()) << got.status();
    if (std::string(ext) != ".bin") {
      EXPECT_EQ(got->dtype, "float32");
      EXPECT_EQ(got->shape, want->shape);
    }
    EXPECT_EQ(FloatsOf(*got), FloatsOf(*want)) << ext;
  }
  // .npy written by us reads back as an input too, and inputs bind by name in any order.
  CliResult npy = RunTunefarm({"run", so_, "--input", in0, "--input", in1, "--output", dir_.File("x.npy")});
  ASSERT_EQ(npy.exit_code, 0);
  CliResult by_name = RunTunefarm({"run", so_, "--input", "y=" + in1, "--input", "x=" + in0});
  EXPECT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_THAT(by_name.out, HasSubstr("float32[3,4,5]"));
}

TEST_F(CliModelTest, ExpectComparesOutputsWithAReference) {
  const std::string in0 = kCase + "test_data_set_0/input_0.pb", in1 = kCase + "test_data_set_0/input_1.pb";
  CliResult ok = RunTunefarm({"run", so_, "--input", in0, "--input", in1, "--expect", kCase + "test_data_set_0/output_0.pb"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("sum: max abs error 0 against"));
  // An input of the same shape is not the sum: a mismatch, exit 1.
  CliResult bad = RunTunefarm({"run", so_, "--input", in0, "--input", in1, "--expect", "sum=" + in0, "--tolerance", "1e-6"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.out, HasSubstr("MISMATCH"));
  CliResult tol = RunTunefarm({"run", so_, "--input", in0, "--input", in1, "--expect", in0, "--tolerance", "x"});
  EXPECT_EQ(tol.exit_code, 2);
}

TEST_F(CliModelTest, BadInputsAreNamed) {
  const std::string in0 = kCase + "test_data_set_0/input_0.pb";
  CliResult one = RunTunefarm({"run", so_, "--input", in0});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_THAT(one.err, HasSubstr("the model has 2 inputs, 1 --input given"));

  CliResult unknown = RunTunefarm({"run", so_, "--input", "q=" + in0, "--input", in0});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("the model has no input 'q' (inputs: x, y)"));

  const std::string small = dir_.WriteFile("small.bin", "0123");
  CliResult bytes = RunTunefarm({"run", so_, "--input", small, "--input", in0});
  EXPECT_EQ(bytes.exit_code, 1);
  EXPECT_THAT(bytes.err, HasSubstr("input 'x' needs 240 bytes (float32[3,4,5]), the file holds 4"));

  // The right element count in the wrong shape is refused; an extra leading 1 (a batch of
  // one) is not a different shape.
  const std::string transposed = dir_.File("t.npy"), batched = dir_.File("b.npy");
  ASSERT_TRUE(frontend::WriteTensorFile(transposed, frontend::TensorFile{"float32", {5, 4, 3}, true, std::string(240, '\0')}).ok());
  ASSERT_TRUE(frontend::WriteTensorFile(batched, frontend::TensorFile{"float32", {1, 3, 4, 5}, true, std::string(240, '\0')}).ok());
  CliResult shape = RunTunefarm({"run", so_, "--input", transposed, "--input", in0});
  EXPECT_EQ(shape.exit_code, 1);
  EXPECT_THAT(shape.err, HasSubstr("input 'x' has shape [3,4,5], the file holds [5,4,3]"));
  CliResult batch = RunTunefarm({"run", so_, "--input", batched, "--input", in0});
  EXPECT_EQ(batch.exit_code, 0) << batch.err;

  const std::string bad_npy = dir_.WriteFile("bad.npy", "not numpy");
  CliResult npy = RunTunefarm({"run", so_, "--input", bad_npy, "--input", in0});
  EXPECT_EQ(npy.exit_code, 1);
  EXPECT_THAT(npy.err, HasSubstr("bad.npy: not a valid .npy file"));
}

// Cut to half (which crashed dlopen), to 99% (which used to load and run), or one flipped
// byte: `run` and `inspect` refuse it by name.
TEST_F(CliModelTest, ADamagedArtifactIsRefusedNotLoaded) {
  const std::string bytes = ReadWholeFile(so_, "artifact").value_or("");
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 1;
  const std::string in0 = kCase + "test_data_set_0/input_0.pb", in1 = kCase + "test_data_set_0/input_1.pb";
  for (const std::string& damaged : {bytes.substr(0, bytes.size() / 2), bytes.substr(0, bytes.size() * 99 / 100),
                                     flipped}) {
    const std::string path = dir_.WriteFile("damaged.so", damaged);
    CliResult run = RunTunefarm({"run", path, "--input", in0, "--input", in1});
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_THAT(run.err, HasSubstr(path + ": corrupt or truncated artifact"));
    CliResult inspect = RunTunefarm({"inspect", path});
    EXPECT_EQ(inspect.exit_code, 1);
    EXPECT_THAT(inspect.err, HasSubstr(path + ": corrupt or truncated artifact"));
  }
}

TEST_F(CliModelTest, InspectReadsTheArtifactAndTheOnnx) {
  for (const std::string& model : {so_, kCase + "model.onnx"}) {
    CliResult r = RunTunefarm({"inspect", model, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc.at("kernel_calls"), 1);
    EXPECT_EQ(doc.at("calls")[0].at("ops"), nlohmann::json::array({"Add"}));
    EXPECT_EQ(doc.at("calls")[0].at("workload").get<std::string>().rfind("tfdag1-", 0), 0u);
  }
  CliResult human = RunTunefarm({"inspect", so_});
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, HasSubstr("1 kernel calls, 1 distinct kernels"));
  EXPECT_THAT(human.out, HasSubstr("memory: arena"));
}

TEST_F(CliModelTest, BenchPrintsLatency) {
  CliResult r = RunTunefarm({"bench", so_, "--runs", "5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("runs"), 5);
  EXPECT_LE(doc.at("min_s").get<double>(), doc.at("median_s").get<double>());
  EXPECT_LE(doc.at("median_s").get<double>(), doc.at("max_s").get<double>());
}

TEST_F(CliModelTest, BenchProfileListsEveryKernelCall) {
  CliResult r = RunTunefarm({"bench", so_, "--runs", "3", "--profile", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.at("calls").size(), 1u);
  EXPECT_EQ(doc.at("calls")[0].at("ops"), "Add");
  EXPECT_GE(doc.at("calls")[0].at("median_s").get<double>(), 0.0);
  CliResult human = RunTunefarm({"bench", so_, "--runs", "3", "--profile"});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_THAT(human.out, HasSubstr("SHARE"));
  EXPECT_THAT(human.out, HasSubstr("100.0%"));
  EXPECT_THAT(human.out, HasSubstr("sum of call medians"));
}

// -o that names the model or the database would destroy it; a write that fails says why and
// leaves no temporary file behind.
TEST(CliModelErrorsTest, CompileRefusesToOverwriteItsInputsAndCleansUpAFailedWrite) {
  TempDir dir;
  const std::string model = dir.File("m.onnx");
  std::filesystem::copy_file(kCase + "model.onnx", model);
  const auto size = std::filesystem::file_size(model);
  for (const std::string& output : {model, dir.File("./m.onnx")}) {
    CliResult r = RunTunefarm({"compile", model, "-o", output});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr("is the input model, which the artifact would overwrite"));
  }
  EXPECT_EQ(std::filesystem::file_size(model), size);

  const std::string db = dir.WriteFile("t.db", "");
  CliResult onto_db = RunTunefarm({"compile", model, "--db", db, "-o", db});
  EXPECT_EQ(onto_db.exit_code, 2);
  EXPECT_THAT(onto_db.err, HasSubstr("is the --db database"));

  CliResult no_dir = RunTunefarm({"compile", model, "-o", dir.File("missing/x.so"), "--threads", "1"});
  EXPECT_EQ(no_dir.exit_code, 1);
  EXPECT_THAT(no_dir.err, HasSubstr("cannot create " + dir.File("missing/x.so.tmp") + ": No such file or directory"));

  // The rename onto a non-empty directory fails after the write: the .tmp must go.
  std::filesystem::create_directories(dir.File("taken.so/inside"));
  CliResult taken = RunTunefarm({"compile", model, "-o", dir.File("taken.so"), "--threads", "1"});
  EXPECT_EQ(taken.exit_code, 1);
  EXPECT_THAT(taken.err, HasSubstr("cannot rename " + dir.File("taken.so.tmp")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("taken.so.tmp")));
}

// A directory, a device or an oversized file is refused before it is read: `compile /dev/zero`
// and `run --input /dev/zero` once grew to 8 GB.
TEST(CliModelErrorsTest, NonRegularAndOversizedFilesAreRefusedUnread) {
  TempDir dir;
  CliResult directory = RunTunefarm({"compile", dir.path(), "-o", dir.File("x.so")});
  EXPECT_EQ(directory.exit_code, 1);
  EXPECT_THAT(directory.err, HasSubstr("model " + dir.path() + ": is a directory, not a file"));
  CliResult device = RunTunefarm({"compile", "/dev/zero", "-o", dir.File("x.so")});
  EXPECT_EQ(device.exit_code, 1);
  EXPECT_THAT(device.err, HasSubstr("model /dev/zero: not a regular file"));

  const std::string so = dir.File("add.so");
  ASSERT_EQ(RunTunefarm({"compile", kCase + "model.onnx", "-o", so, "--threads", "1"}).exit_code, 0);
  const std::string in0 = kCase + "test_data_set_0/input_0.pb";
  CliResult zero = RunTunefarm({"run", so, "--input", "/dev/zero", "--input", in0});
  EXPECT_EQ(zero.exit_code, 1);
  EXPECT_THAT(zero.err, HasSubstr("tensor file /dev/zero: not a regular file"));
  const std::string big = dir.WriteFile("big.bin", std::string((1 << 20) + 241, 'x'));
  CliResult huge = RunTunefarm({"run", so, "--input", big, "--input", in0});
  EXPECT_EQ(huge.exit_code, 1);
  EXPECT_THAT(huge.err, HasSubstr("bytes, more than the"));
}

TEST(CliModelErrorsTest, BadModelsGetClearErrors) {
  TempDir dir;
  CliResult missing = RunTunefarm({"compile", dir.File("nope.onnx"), "-o", dir.File("x.so")});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("nope.onnx"));

  const std::string junk = dir.WriteFile("junk.onnx", "this is not a protobuf");
  CliResult bad = RunTunefarm({"compile", junk, "-o", dir.File("x.so")});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("junk.onnx"));
  std::ifstream none(dir.File("x.so"));
  EXPECT_FALSE(none.good()) << "a failed compile must not leave an artifact";

  const std::string not_artifact = dir.WriteFile("plain.so", "ELF? no");
  CliResult inspect = RunTunefarm({"inspect", not_artifact});
  EXPECT_EQ(inspect.exit_code, 1);
  EXPECT_THAT(inspect.err, HasSubstr("plain.so"));
  CliResult run = RunTunefarm({"run", not_artifact});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("plain.so"));

  CliResult target = RunTunefarm({"compile", junk, "-o", dir.File("x.so"), "--target", "llvm -mtriple=mips"});
  EXPECT_EQ(target.exit_code, 2);
  EXPECT_THAT(target.err, HasSubstr("--target"));
}

// A Reshape whose shape is a graph input, as exported models and conformance cases have it.
TEST(CliBindTest, AShapeInputBoundAtCompileTimeCompilesAndRuns) {
  TempDir dir;
  const std::string c = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_reshape_negative_dim/";
  const std::string data = c + "test_data_set_0/input_0.pb", shape = c + "test_data_set_0/input_1.pb";
  const std::string so = dir.File("reshape.so");

  CliResult unbound = RunTunefarm({"compile", c + "model.onnx", "-o", so, "--threads", "1"});
  EXPECT_EQ(unbound.exit_code, 1);
  EXPECT_THAT(unbound.err, HasSubstr("it is the graph input 'shape': give its value at compile time with --bind shape=FILE"));

  // The same value as .pb and as .npy (written by the CLI's own writer).
  auto value = frontend::ReadTensorFile(shape, 1 << 20);
  ASSERT_TRUE(value.ok()) << value.status();
  const std::string npy = dir.File("shape.npy");
  ASSERT_TRUE(frontend::WriteTensorFile(npy, *value).ok());
  for (const std::string& file : {shape, npy}) {
    CliResult bound = RunTunefarm({"compile", c + "model.onnx", "-o", so, "--threads", "1", "--bind", "shape=" + file});
    ASSERT_EQ(bound.exit_code, 0) << bound.err;
    CliResult run = RunTunefarm({"run", so, "--input", data, "--expect", c + "test_data_set_0/output_0.pb"});
    EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_THAT(run.out, HasSubstr("max abs error 0"));
  }
}

TEST(CliBindTest, AWrongBindingIsNamed) {
  TempDir dir;
  const std::string c = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_reshape_negative_dim/";
  const std::string data = c + "test_data_set_0/input_0.pb", shape = c + "test_data_set_0/input_1.pb";
  auto compile = [&](const std::string& bind) {
    return RunTunefarm({"compile", c + "model.onnx", "-o", dir.File("x.so"), "--threads", "1", "--bind", bind});
  };
  CliResult typo = compile("shap=" + shape);
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_THAT(typo.err, HasSubstr("a value is bound to 'shap', which is not an input of the model (inputs: data, shape)"));
  CliResult dtype = compile("shape=" + data);
  EXPECT_EQ(dtype.exit_code, 1);
  EXPECT_THAT(dtype.err, HasSubstr("--bind shape: the model declares int64, the file holds float32"));
  CliResult missing = compile("shape=" + dir.File("none.npy"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("--bind shape: tensor file " + dir.File("none.npy") + ": no such file"));
  CliResult raw = compile("shape=" + dir.WriteFile("shape.bin", std::string(24, '\0')));
  EXPECT_EQ(raw.exit_code, 1);
  EXPECT_THAT(raw.err, HasSubstr("has no dtype or shape (raw bytes)"));
  CliResult malformed = compile("shape");
  EXPECT_THAT(malformed.err, HasSubstr("--bind 'shape': expected NAME=FILE"));
  // The wrong shape for a declared one: the model declares shape [3] for 'shape'.
  frontend::TensorFile four{"int64", {4}, true, std::string(32, '\0')};
  const std::string wrong = dir.File("four.npy");
  ASSERT_TRUE(frontend::WriteTensorFile(wrong, four).ok());
  CliResult mismatch = compile("shape=" + wrong);
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_THAT(mismatch.err, HasSubstr("--bind shape: the model declares shape [3], the file holds [4]"));
}

TEST(TensorFiles, Bfloat16NpyIsATwoByteVoid) {
  TempDir dir;
  const frontend::TensorFile bf{"bfloat16", {2}, true, std::string("\x80\x3f\x00\xc0", 4)};  // 1.0, -2.0
  const std::string path = dir.File("bf.npy");
  ASSERT_TRUE(frontend::WriteTensorFile(path, bf).ok());
  const std::string bytes = ReadWholeFile(path, "npy").value_or("");
  EXPECT_THAT(bytes, HasSubstr("'descr': '|V2'"));
  auto back = frontend::ReadTensorFile(path, 1 << 20);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dtype, "bfloat16");
  EXPECT_EQ(back->bytes, bf.bytes);
  // What NumPy writes for an ml_dtypes.bfloat16 array reads the same.
  std::string little = bytes;
  little.replace(little.find("'|V2'"), 5, "'<V2'");
  auto other = frontend::ReadTensorFile(dir.WriteFile("little.npy", little), 1 << 20);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->dtype, "bfloat16");
}

TEST(TensorFiles, AnNpyShapeWhoseSizeOverflowsIsRefused) {
  TempDir dir;
  // 2^62 x 4 float32 elements: the byte count wraps to 0, which is what the file holds.
  const frontend::TensorFile huge{"float32", {int64_t{1} << 62, 4}, true, ""};
  const std::string path = dir.File("huge.npy");
  ASSERT_TRUE(frontend::WriteTensorFile(path, huge).ok());
  auto read = frontend::ReadTensorFile(path, 1 << 20);
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("is too large"));
}

// 16-bit floats in and out of `run`: ONNX's test data holds bfloat16 as uint16 bit patterns, and
// its NaN and infinities compare equal to themselves.
TEST(CliModelErrorsTest, SixteenBitFloatsRunAndCompare) {
  TempDir dir;
  const std::string node = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/";
  for (const char* c : {"test_cast_BFLOAT16_to_FLOAT", "test_cast_FLOAT_to_FLOAT16"}) {
    const std::string so = dir.File(std::string(c) + ".so"), data = node + c + "/test_data_set_0/";
    ASSERT_EQ(RunTunefarm({"compile", node + c + "/model.onnx", "-o", so, "--threads", "1"}).exit_code, 0) << c;
    CliResult run = RunTunefarm({"run", so, "--input", data + "input_0.pb", "--expect", data + "output_0.pb",
                                 "--tolerance", "0", "--output", dir.File("out.npy")});
    EXPECT_EQ(run.exit_code, 0) << c << run.err << run.out;
    EXPECT_THAT(run.out, HasSubstr("max abs error 0")) << c;
  }
  auto half = frontend::ReadTensorFile(dir.File("out.npy"), 1 << 20);  // the FLOAT16 case's output
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_EQ(half->dtype, "float16");
  CliResult summary = RunTunefarm({"run", dir.File("test_cast_FLOAT_to_FLOAT16.so"), "--input",
                                   node + "test_cast_FLOAT_to_FLOAT16/test_data_set_0/input_0.pb"});
  EXPECT_THAT(summary.out, HasSubstr("float16[3,4] [0.548828"));
}

// Clip's min and max change no shape, so as graph inputs they stay runtime inputs (no --bind).
TEST(CliBindTest, ClipBoundsMayStayRuntimeInputs) {
  TempDir dir;
  const std::string node = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/";
  for (const char* c : {"test_clip", "test_clip_default_min", "test_clip_splitbounds"}) {
    const std::string data = node + c + "/test_data_set_0/", so = dir.File(std::string(c) + ".so");
    CliResult compile = RunTunefarm({"compile", node + c + "/model.onnx", "-o", so, "--threads", "2"});
    ASSERT_EQ(compile.exit_code, 0) << c << compile.err;
    std::vector<std::string> run = {"run", so};
    for (int i = 0; std::filesystem::exists(data + "input_" + std::to_string(i) + ".pb"); ++i)
      run.insert(run.end(), {"--input", data + "input_" + std::to_string(i) + ".pb"});
    run.insert(run.end(), {"--expect", data + "output_0.pb", "--tolerance", "0"});
    CliResult result = RunTunefarm(run);
    EXPECT_EQ(result.exit_code, 0) << c << result.err << result.out;
  }
}

#ifdef TUNEFARM_HAVE_EMBEDDED_FARM
// `compile --choose-in-model`: a conv tuned for a few trials, then built on its default, best and
// second-best schedule, each timed inside the model; the table names a choice per kernel and
// the chosen artifact computes the conv. Which variant wins is the host's business, not the
// test's.
TEST(CliChooseInModelTest, ChoosesPerKernelAndTheArtifactStillComputesTheModel) {
  TempDir dir;
  const std::string conv = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_conv_with_strides_no_padding/";
  CliResult tuned = RunTunefarm({"tune", conv + "model.onnx", "--db", dir.File("t.db"), "--trials", "6", "--threads",
                                 "1", "--population", "16", "--per-round", "3", "--min-repeat-ms", "1"});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const std::string so = dir.File("conv.so");
  CliResult r = RunTunefarm({"compile", conv + "model.onnx", "--db", dir.File("t.db"), "--threads", "1",
                             "--choose-in-model", "-o", so});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("building variant 3 of 3: every kernel on its 2nd record"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("KERNEL +CALLS +DEFAULT +BEST RECORD +2ND RECORD +CHOSEN"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("tf_k0 .*(default|best record|2nd record)\n"));
  EXPECT_THAT(r.out, HasSubstr("sum of call medians: default "));
  CliResult run = RunTunefarm({"run", so, "--input", conv + "test_data_set_0/input_0.pb", "--input",
                               conv + "test_data_set_0/input_1.pb", "--expect", conv + "test_data_set_0/output_0.pb"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;

  // Refused before any work: no database to choose from, or a target that is not this machine.
  CliResult no_db = RunTunefarm({"compile", conv + "model.onnx", "--choose-in-model", "-o", so});
  EXPECT_EQ(no_db.exit_code, 2);
  EXPECT_THAT(no_db.err, HasSubstr("--choose-in-model chooses among tuned records: it needs --db"));
  CliResult arm = RunTunefarm({"compile", conv + "model.onnx", "--db", dir.File("t.db"), "--choose-in-model", "--target",
                               "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72", "-o", so});
  EXPECT_EQ(arm.exit_code, 2);
  EXPECT_THAT(arm.err, HasSubstr("times the model on this machine, so the target must be this machine's"));
}
#endif  // TUNEFARM_HAVE_EMBEDDED_FARM

#ifdef TUNEFARM_HAVE_TUNER  // the default GPU programs are the tuner's
// An untuned kernel compiled for a GPU runs the default GPU program (tuner/search_space/
// gpu_default_program.h): its operands' tiles in shared memory, not one thread per output point.
TEST(CliGpuCompileTest, AnUntunedGpuMatmulIsTiledInSharedMemory) {
  TempDir dir;
  const std::string so = dir.File("mm.so");
  const std::string model = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_matmul_2d/model.onnx";
  CliResult r = RunTunefarm({"compile", model, "--target", "cuda -arch=sm_90", "-o", so});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("(default)"));
  auto bytes = ReadWholeFile(so, "the artifact");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_THAT(*bytes, HasSubstr(".shared .align 16"));  // the artifact embeds its PTX as text
  EXPECT_THAT(*bytes, HasSubstr("ld.shared"));
}
#endif

// --untuned-gpu thread-per-point: the tuner's reference instead, for comparisons; a bad value,
// or the flag without a cuda target, is named.
TEST(CliGpuCompileTest, UntunedGpuKernelsMayRunOneThreadPerPoint) {
  TempDir dir;
  const std::string so = dir.File("mm.so");
  const std::string model = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_matmul_2d/model.onnx";
  CliResult r = RunTunefarm({"compile", model, "--target", "cuda -arch=sm_90", "--untuned-gpu", "thread-per-point", "-o", so});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto bytes = ReadWholeFile(so, "the artifact");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_THAT(*bytes, HasSubstr(".entry"));
  EXPECT_THAT(*bytes, ::testing::Not(HasSubstr(".shared")));
  CliResult bad = RunTunefarm({"compile", model, "--target", "cuda -arch=sm_90", "--untuned-gpu", "fast", "-o", so});
  EXPECT_EQ(bad.exit_code, 2);  // a usage error
  EXPECT_THAT(bad.err, HasSubstr("--untuned-gpu: expected program or thread-per-point, got 'fast'"));
  CliResult cpu = RunTunefarm({"compile", model, "--untuned-gpu", "program", "-o", so});
  EXPECT_EQ(cpu.exit_code, 2);
  EXPECT_THAT(cpu.err, HasSubstr("--untuned-gpu needs a cuda --target"));
}

}  // namespace
}  // namespace tunefarm::cli
