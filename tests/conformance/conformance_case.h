// ONNX node conformance cases (shared/onnx-tests/node/<case>): loading a case (model and every
// test_data_set), running it through an executor, comparing outputs with the ONNX backend
// tolerance, and classifying it PASSED / FAILED(reason) / UNSUPPORTED(reason).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/host_tensor.h"

namespace tunefarm::conformance {

using graph::HostTensor;

// Runs an imported graph: `inputs` in the order of the graph's "input" nodes; the result in the
// order of graph.outputs(). Unimplemented means "not supported" (the case is UNSUPPORTED); any
// other error fails the case. The reference executor (reference_executor.h) runs node by node;
// the full pipeline (passes + build + model artifact) plugs in here later.
using CaseExecutor =
    std::function<absl::StatusOr<std::vector<HostTensor>>(const graph::Graph&, const std::vector<HostTensor>& inputs)>;

struct DataSet {
  std::string name;                  // "test_data_set_0"
  std::vector<HostTensor> inputs;    // by the model's (non-initializer) graph inputs, in order
  std::vector<HostTensor> outputs;   // expected, by the model's graph outputs, in order
};

struct Case {
  std::string name;  // the folder name, e.g. "test_relu"
  std::string dir;
  std::string model_bytes;
  std::vector<std::string> ops;          // op types of the top-level nodes (file order, repeats removed)
  std::vector<std::string> input_names;  // graph inputs that are not initializers
  std::vector<std::string> output_names;
  // Graph inputs that must be compile-time constants (shape operands such as Reshape's shape or
  // Clip's bounds), bound from the data set through ImportOptions::constant_inputs.
  std::set<std::string> constant_inputs;
  std::vector<DataSet> data_sets;
  std::string unsupported;  // non-empty: why the case cannot be loaded (string/sequence types, ...)
};

// Reads model.onnx and the data sets; an error only for a missing or corrupt case folder. Types
// tunefarm has no dtype for (strings, float16, sequences, optionals) make `unsupported` non-empty.
absl::StatusOr<Case> LoadCase(const std::string& dir);

enum class Outcome { kPassed, kFailed, kUnsupported };
std::string_view OutcomeName(Outcome o);

struct Result {
  Outcome outcome = Outcome::kPassed;
  std::string reason;
};

// Imports the model (per data set, so constant inputs take that set's values), runs it and
// compares every output.
Result RunCase(const Case& c, const CaseExecutor& executor);

// OK when `got` matches `want`: same dtype and shape; floats within
// |got - want| <= atol + rtol * |want| with rtol 1e-3 and atol 1e-7 scaled by the largest
// expected magnitude (at least 1), NaN equal to NaN, infinities exact; integers and bools exact.
absl::Status Compare(const HostTensor& got, const HostTensor& want);

// The ops of COVERAGE.md's must-support table.
absl::StatusOr<std::set<std::string>> ReadMustSupportOps(const std::string& coverage_md);

// Case folders under `root`, sorted by name.
std::vector<std::string> ListCases(const std::string& root);

}  // namespace tunefarm::conformance
