// A small model artifact built the way compiler/build will: two kernels from compiler/ops under
// their default schedules, compiled by codegen with the plan and the parameters embedded; the
// plan is written here by hand, so tests can break it field by field.
//
//   h = dense(x, W, bias)      tf_k0: x [3, 16] input, W [8, 16] and bias [8] params,
//                                     h [3, 8] an intermediate in the arena
//   out = relu(h + y)          tf_k1: y [3, 8] input
//   out_flat = out viewed as [24]     (a second value on the same bytes)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/common/temp_file.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::deploy::testing {

struct TestModel {
  static constexpr int64_t kRows = 3, kIn = 16, kOut = 8;
  std::vector<tir::PrimFunc> kernels;  // tf_k0, tf_k1
  std::vector<float> weight, bias;
  std::string params;   // the parameter blob: W at 0, bias at 512, padded to 576 bytes
  nlohmann::json plan;  // a valid plan for kernels + params

  // out for inputs x [3, 16] and y [3, 8], computed in plain C++.
  std::vector<float> Reference(const std::vector<float>& x, const std::vector<float>& y) const;
};

// Built once per process (scheduling and lowering are the slow part).
const TestModel& GetTestModel();

// Compiles the model's kernels into an artifact embedding `plan_text` (no plan symbol at all when
// nullopt) and the params; returns the path of a temporary .so, removed at exit.
std::string WriteArtifact(const TestModel& model, const std::optional<std::string>& plan_text);

// A temporary file removed at exit (tests/common/temp_file.h).
using tunefarm::testing::WriteTempFile;
std::vector<float> RandomFloats(size_t n, uint32_t seed);

// Runs `command` through the shell: its exit status and stdout (plus stderr when asked, 2>&1).
struct CommandResult {
  int status = -1;
  std::string output;
};
CommandResult RunCommand(const std::string& command);

}  // namespace tunefarm::deploy::testing
