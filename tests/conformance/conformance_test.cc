// Every ONNX node case whose ops are all in COVERAGE.md's must-support list runs through both
// executors (the node-by-node reference, and the compiled model artifact users get) and must pass, unless exemptions.txt names it with an accepted reason
// (string tensors, sequence/optional types, outputs that depend on a random generator). The
// number of passing cases must not drop below pass_floor.txt. Cases listed in
// known_unsupported.txt (dtypes the IR lacks, ...) are reported, not failed: that list is open
// work, kept apart from the exemptions.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "common/strings.h"
#include "tests/conformance/compiled_executor.h"
#include "tests/conformance/conformance_case.h"
#include "tests/conformance/reference_executor.h"
#include <cmath>
#include <limits>

namespace tunefarm::conformance {
namespace {

const std::string kShared = TUNEFARM_SHARED_DIR;
const std::string kHere = TUNEFARM_CONFORMANCE_DIR;

// case name -> reason, from lines `case_name  # reason` of a file in this folder.
std::map<std::string, std::string> ReadCaseList(const std::string& file) {
  std::map<std::string, std::string> out;
  std::ifstream f(kHere + "/" + file);
  std::string line;
  while (std::getline(f, line)) {
    size_t hash = line.find('#');
    std::string name = line.substr(0, hash);
    name.erase(name.find_last_not_of(" \t") + 1);
    name.erase(0, name.find_first_not_of(" \t"));
    if (name.empty()) continue;
    out[name] = hash == std::string::npos ? "" : line.substr(hash + 1);
  }
  return out;
}

int ReadFloor(const std::string& file = "pass_floor.txt") {
  std::ifstream f(kHere + "/" + file);
  int floor = -1;
  f >> floor;
  return floor;
}

// The must-support cases through `executor`; `label` names it in the messages.
void ExpectMustSupportCasesPass(const CaseExecutor& executor, const std::string& label) {
  auto must = ReadMustSupportOps(kShared + "/onnx-tests/COVERAGE.md");
  ASSERT_TRUE(must.ok()) << must.status();
  auto exemptions = ReadCaseList("exemptions.txt");
  auto known = ReadCaseList("known_unsupported.txt");
  for (const auto& [name, reason] : exemptions) {
    bool accepted = reason.find("string") != std::string::npos || reason.find("sequence") != std::string::npos ||
                    reason.find("optional") != std::string::npos || reason.find("random") != std::string::npos;
    EXPECT_TRUE(accepted) << name << ": exemption reason '" << reason << "' is not an accepted one";
  }
  std::vector<std::string> dirs = ListCases(kShared + "/onnx-tests/node");
  ASSERT_FALSE(dirs.empty()) << "no conformance cases under " << kShared;
  int selected = 0, passed = 0;
  for (const std::string& dir : dirs) {
    auto c = LoadCase(dir);
    ASSERT_TRUE(c.ok()) << c.status();
    bool all_must = true;
    for (const std::string& op : c->ops) all_must = all_must && must->count(op) != 0;
    if (!all_must) continue;
    ++selected;
    Result r = RunCase(*c, executor);
    if (r.outcome == Outcome::kPassed) {
      ++passed;
      EXPECT_FALSE(exemptions.count(c->name)) << label << ": " << c->name << " passes: remove it from exemptions.txt";
      EXPECT_FALSE(known.count(c->name)) << label << ": " << c->name << " passes: remove it from known_unsupported.txt";
      continue;
    }
    if (exemptions.count(c->name)) continue;
    if (known.count(c->name)) {
      std::printf("%s: known unsupported: %s: %s\n", label.c_str(), c->name.c_str(), r.reason.c_str());
      continue;
    }
    ADD_FAILURE() << label << ": " << c->name << ": " << OutcomeName(r.outcome) << " " << r.reason;
  }
  int floor = ReadFloor();
  ASSERT_GT(floor, 0) << "pass_floor.txt is missing";
  EXPECT_GE(passed, floor) << label << ": must-support cases passing dropped below the floor";
  std::printf("%s: must-support cases: %d selected, %d passed\n", label.c_str(), selected, passed);
}

TEST(Conformance, MustSupportCasesPassWithTheReferenceExecutor) {
  ExpectMustSupportCasesPass(ReferenceExecutor(), "reference");
}

// Compiled for 1 and 2 threads, run on pools of 1 and 2 threads (the runs must agree).
TEST(Conformance, MustSupportCasesPassCompiled) { ExpectMustSupportCasesPass(CompiledExecutor(), "compiled"); }

// The whole suite, compiled: no case may give a wrong result (unsupported is refused with a
// message, which is allowed), the number passing may not drop below whole_suite_floor.txt,
// which rises with every op family added (issue 17), and every unsupported case is accounted
// for: exempt by design (whole_suite_exemptions.txt) or open work (whole_suite_open.txt).
TEST(Conformance, WholeSuiteNeverWrongAndAboveItsFloor) {
  std::vector<std::string> dirs = ListCases(kShared + "/onnx-tests/node");
  ASSERT_FALSE(dirs.empty()) << "no conformance cases under " << kShared;
  auto exempt = ReadCaseList("whole_suite_exemptions.txt");
  auto open = ReadCaseList("whole_suite_open.txt");
  ASSERT_FALSE(exempt.empty()) << "whole_suite_exemptions.txt is missing";
  for (const auto& [name, reason] : exempt) {
    bool accepted = false;
    for (const char* word : {"string", "sequence", "optional", "training-only", "random", "data-dependent"})
      accepted = accepted || reason.find(word) != std::string::npos;
    EXPECT_TRUE(accepted) << name << ": exemption reason '" << reason << "' is not an accepted one";
    EXPECT_FALSE(open.count(name)) << name << " is both exempt and open work";
  }
  int counts[3] = {0, 0, 0};
  for (const std::string& dir : dirs) {
    auto c = LoadCase(dir);
    ASSERT_TRUE(c.ok()) << c.status();
    Result r = RunCase(*c, CompiledExecutor());
    ++counts[static_cast<int>(r.outcome)];
    EXPECT_NE(r.outcome, Outcome::kFailed) << c->name << ": " << r.reason;
    const bool listed = exempt.count(c->name) || open.count(c->name);
    if (r.outcome == Outcome::kPassed) {
      EXPECT_FALSE(listed) << c->name << " passes: remove it from whole_suite_exemptions.txt / whole_suite_open.txt";
    }
    if (r.outcome == Outcome::kUnsupported) {
      EXPECT_TRUE(listed) << c->name << " is unsupported but in neither whole_suite_exemptions.txt nor "
                          << "whole_suite_open.txt: " << r.reason;
    }
  }
  const int passed = counts[static_cast<int>(Outcome::kPassed)];
  const int floor = ReadFloor("whole_suite_floor.txt");
  ASSERT_GT(floor, 0) << "whole_suite_floor.txt is missing";
  EXPECT_GE(passed, floor) << "cases passing dropped below the whole-suite floor";
  std::printf("whole suite: %zu cases, %d passed, %d failed, %d unsupported\n", dirs.size(), passed,
              counts[static_cast<int>(Outcome::kFailed)], counts[static_cast<int>(Outcome::kUnsupported)]);
}

// ReduceLogSumExp's shift by the max must not turn an infinite max into inf - inf = NaN.
TEST(ReduceLogSumExp, InfinitiesAndLargeValuesStayExact) {
  const double inf = std::numeric_limits<double>::infinity();
  graph::Graph g;
  auto x = g.AddInput("x", {te::DType::kFloat32, {3, 3}});
  ASSERT_TRUE(x.ok());
  graph::Attrs attrs;
  attrs.Set("axes", std::vector<int64_t>{1});
  attrs.Set("keepdims", int64_t{0});
  auto y = g.AddNode("ReduceLogSumExp", "lse", {*x}, attrs);
  ASSERT_TRUE(y.ok()) << y.status();
  g.AddOutput("y", y->at(0));
  HostTensor data = HostTensor::FromFloats({static_cast<float>(inf), 0, 1, static_cast<float>(-inf),
                                            static_cast<float>(-inf), static_cast<float>(-inf), 1000, 1000, 0},
                                           {3, 3});
  auto out = RunReference(g, {data});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->at(0).NumElements(), 3);
  EXPECT_EQ(out->at(0).GetDouble(0), inf);
  EXPECT_EQ(out->at(0).GetDouble(1), -inf);
  EXPECT_NEAR(out->at(0).GetDouble(2), 1000 + std::log(2.0), 1e-3);
}

}  // namespace
}  // namespace tunefarm::conformance
