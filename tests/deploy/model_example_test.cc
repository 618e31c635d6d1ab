// The C example (deploy/example/run_model.c) on a codegen-built artifact: what it prints, its
// errors, and that it and libtunefarm_runtime pull in nothing heavy (ldd) and export only the
// C API.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "tests/deploy/model_artifact_builder.h"

namespace tunefarm::deploy::testing {
namespace {

const char* const kForbidden[] = {"libLLVM", "libgrpc", "libprotobuf", "libabsl"};

std::string Bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// The numbers after "<name> float32 [3, 8]:" on the example's output line for `name`.
std::vector<float> PrintedValues(const std::string& output, const std::string& name) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string prefix = name + " float32 [";
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream values(line.substr(line.find("]:") + 2));
    std::vector<float> out;
    float v;
    while (values >> v) out.push_back(v);
    return out;
  }
  return {};
}

void ExpectNear(const std::vector<float>& printed, const std::vector<float>& expected) {
  ASSERT_EQ(printed.size(), 8u);  // the example prints the first 8 values
  for (size_t i = 0; i < printed.size(); ++i) {
    EXPECT_NEAR(printed[i], expected[i], 1e-5 + 1e-5 * std::fabs(expected[i])) << i;
  }
}

TEST(RunModelExample, PrintsTheOutputsOfInputFiles) {
  const TestModel& m = GetTestModel();
  const std::string model = WriteArtifact(m, m.plan.dump());
  auto x = RandomFloats(m.kRows * m.kIn, 41), y = RandomFloats(m.kRows * m.kOut, 42);
  const std::string x_file = WriteTempFile(Bytes(x), ".bin"), y_file = WriteTempFile(Bytes(y), ".bin");
  CommandResult run = RunCommand(std::string(RUN_MODEL_EXAMPLE) + " --threads 2 " + model + " " + x_file + " " +
                                 y_file + " 2>&1");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("out float32 [3, 8]:"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("out_flat float32 [24]:"), std::string::npos) << run.output;
  ExpectNear(PrintedValues(run.output, "out"), m.Reference(x, y));
  ExpectNear(PrintedValues(run.output, "out_flat"), m.Reference(x, y));

  // Without files the inputs are zeros: out = relu(bias) on every row.
  CommandResult zeros = RunCommand(std::string(RUN_MODEL_EXAMPLE) + " " + model + " 2>&1");
  ASSERT_EQ(zeros.status, 0) << zeros.output;
  std::vector<float> relu_bias;
  for (float b : m.bias) relu_bias.push_back(b > 0 ? b : 0);
  ExpectNear(PrintedValues(zeros.output, "out"), relu_bias);
}

TEST(RunModelExample, ReportsErrors) {
  CommandResult missing = RunCommand(std::string(RUN_MODEL_EXAMPLE) + " /nonexistent/model.so 2>&1");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.output.find("/nonexistent/model.so: cannot open: No such file or directory"), std::string::npos) << missing.output;

  const TestModel& m = GetTestModel();
  const std::string model = WriteArtifact(m, m.plan.dump());
  const std::string short_file = WriteTempFile("abc", ".bin");
  CommandResult wrong_size = RunCommand(std::string(RUN_MODEL_EXAMPLE) + " " + model + " " + short_file + " 2>&1");
  EXPECT_EQ(wrong_size.status, 1);
  EXPECT_NE(wrong_size.output.find("expected exactly 192 bytes"), std::string::npos) << wrong_size.output;
}

TEST(RunModelExample, LinksNothingHeavy) {
  CommandResult ldd = RunCommand(std::string("ldd ") + RUN_MODEL_EXAMPLE + " 2>&1");
  ASSERT_EQ(ldd.status, 0) << ldd.output;
  EXPECT_NE(ldd.output.find("libtunefarm_runtime.so"), std::string::npos) << ldd.output;
  EXPECT_EQ(ldd.output.find("not found"), std::string::npos) << ldd.output;
  for (const char* name : kForbidden) EXPECT_EQ(ldd.output.find(name), std::string::npos) << name << "\n" << ldd.output;
}

TEST(RunModelExample, RuntimeLibraryExportsOnlyTheCApi) {
  CommandResult ldd = RunCommand(std::string("ldd ") + RUN_MODEL_EXAMPLE + " | awk '/libtunefarm_runtime/ {print $3}'");
  std::string library = ldd.output.substr(0, ldd.output.find('\n'));
  ASSERT_FALSE(library.empty());
  CommandResult symbols = RunCommand("nm -D --defined-only " + library + " | awk '{print $3}'");
  ASSERT_EQ(symbols.status, 0);
  std::istringstream names(symbols.output);
  std::string name;
  int count = 0;
  while (std::getline(names, name)) {
    if (name.empty()) continue;
    ++count;
    EXPECT_EQ(name.rfind("tunefarm_", 0), 0u) << "exports " << name;
  }
  EXPECT_EQ(count, 14) << symbols.output;  // the fourteen functions of tunefarm_runtime.h
}

}  // namespace
}  // namespace tunefarm::deploy::testing
