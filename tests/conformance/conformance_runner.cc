// conformance_runner [--executor reference|compiled] [--filter SUBSTR] [--verbose] [--root DIR]:
// runs every ONNX node case through an executor (default: compiled, the full pipeline users
// get), one line per case, then "passed N / failed N / unsupported N".
#include <chrono>
#include <cstdio>
#include <string>

#include "common/command_flags.h"
#include "tests/conformance/compiled_executor.h"
#include "tests/conformance/conformance_case.h"
#include "tests/conformance/reference_executor.h"

using namespace tunefarm::conformance;

int main(int argc, char** argv) {
  const tunefarm::CommandSpec spec = {
      "conformance_runner",
      "every ONNX node case through an executor, one line per case",
      {{"executor", 0, "NAME", "reference or compiled (default)"},
       {"filter", 0, "SUBSTR", "only the cases whose directory contains it"},
       {"verbose", 0, "", "whole reasons and the time per case"},
       {"root", 0, "DIR", "the cases (default: the shared onnx-tests/node)"}},
      {}};
  absl::StatusOr<tunefarm::ParsedFlags> flags = tunefarm::ParsedFlags::Parse(spec, argc, argv);
  if (!flags.ok() || flags->help()) {
    if (!flags.ok()) std::fprintf(stderr, "%s\n", std::string(flags.status().message()).c_str());
    std::fprintf(stderr, "%s", tunefarm::Usage(spec).c_str());
    return flags.ok() ? 0 : 2;
  }
  const std::string filter = flags->Get("filter"), executor_name = flags->Get("executor", "compiled");
  const std::string root = flags->Get("root", std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node");
  const bool verbose = flags->Has("verbose");
  if (executor_name != "reference" && executor_name != "compiled") {
    std::fprintf(stderr, "--executor: 'reference' or 'compiled', not '%s'\n", executor_name.c_str());
    return 2;
  }
  std::vector<std::string> dirs = ListCases(root);
  if (dirs.empty()) {
    std::fprintf(stderr, "no cases under %s\n", root.c_str());
    return 1;
  }
  int counts[3] = {0, 0, 0};
  CaseExecutor executor = executor_name == "reference" ? ReferenceExecutor() : CompiledExecutor();
  for (const std::string& dir : dirs) {
    if (!filter.empty() && dir.find(filter) == std::string::npos) continue;
    auto start = std::chrono::steady_clock::now();
    auto c = LoadCase(dir);
    Result r = c.ok() ? RunCase(*c, executor) : Result{Outcome::kFailed, std::string(c.status().message())};
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ++counts[static_cast<int>(r.outcome)];
    std::string name = dir.substr(dir.find_last_of('/') + 1);
    std::string reason = r.reason;
    if (!verbose && reason.size() > 160) reason = reason.substr(0, 157) + "...";
    std::printf("%-11s %s%s%s", std::string(OutcomeName(r.outcome)).c_str(), name.c_str(), reason.empty() ? "" : "  ",
                reason.c_str());
    if (verbose) std::printf("  (%.0f ms)", ms);
    std::printf("\n");
    std::fflush(stdout);
  }
  std::printf("passed %d / failed %d / unsupported %d\n", counts[0], counts[1], counts[2]);
  return 0;
}
