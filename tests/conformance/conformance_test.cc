// Every ONNX node case whose ops are all in COVERAGE.md's must-support list runs through the
// reference executor and must pass, unless exemptions.txt names it with an accepted reason
// (string tensors, sequence/optional types, outputs that depend on a random generator). The
// number of passing cases must not drop below pass_floor.txt. Cases listed in
// known_unsupported.txt (dtypes the IR lacks, ...) are reported, not failed: that list is open
// work, kept apart from the exemptions.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "compiler/common/strings.h"
#include "tests/conformance/conformance_case.h"
#include "tests/conformance/reference_executor.h"

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

int ReadFloor() {
  std::ifstream f(kHere + "/pass_floor.txt");
  int floor = -1;
  f >> floor;
  return floor;
}

TEST(Conformance, MustSupportCasesPass) {
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
  CaseExecutor executor = ReferenceExecutor();
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
      EXPECT_FALSE(exemptions.count(c->name)) << c->name << " passes: remove it from exemptions.txt";
      EXPECT_FALSE(known.count(c->name)) << c->name << " passes: remove it from known_unsupported.txt";
      continue;
    }
    if (exemptions.count(c->name)) continue;
    if (known.count(c->name)) {
      std::printf("known unsupported: %s: %s\n", c->name.c_str(), r.reason.c_str());
      continue;
    }
    ADD_FAILURE() << c->name << ": " << OutcomeName(r.outcome) << " " << r.reason;
  }
  int floor = ReadFloor();
  ASSERT_GT(floor, 0) << "pass_floor.txt is missing";
  EXPECT_GE(passed, floor) << "must-support cases passing dropped below the floor";
  std::printf("must-support cases: %d selected, %d passed\n", selected, passed);
}

}  // namespace
}  // namespace tunefarm::conformance
