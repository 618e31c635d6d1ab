// Test harness of the op library: host tensors (every element held as a double; integer values
// stay well below 2^53 so they are exact), seeded random inputs, the op run through lowering of
// an unscheduled State + the loop-IR interpreter, or compiled to a .so, and a tolerance check.
// References in the tests are plain C++ over HostTensor, written from the op's definition.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ops/op_common.h"
#include "compiler/schedule/state.h"

namespace tunefarm::ops::testing {

struct HostTensor {
  DType dtype = DType::kFloat32;
  Shape shape;
  std::vector<double> data;  // row-major

  HostTensor() = default;
  HostTensor(DType t, Shape s) : dtype(t), shape(std::move(s)), data(NumElements(shape), 0.0) {}
  int64_t size() const { return static_cast<int64_t>(data.size()); }
  double& at(const std::vector<int64_t>& index) { return data[Flat(index)]; }
  double at(const std::vector<int64_t>& index) const { return data[Flat(index)]; }
  int64_t Flat(const std::vector<int64_t>& index) const;
};

// Uniform in [lo, hi): floats (rounded to float32 for float32), integers in [lo, hi]
// (clamped to the dtype), bool 0/1.
HostTensor Random(DType t, const Shape& shape, uint64_t seed, double lo = -1, double hi = 1);

// Calls fn(index) for every index of `shape`, row-major (once for a 0-d shape).
void ForEachIndex(const Shape& shape, const std::function<void(const std::vector<int64_t>&)>& fn);

// The value an integer dtype stores for v (two's complement wrap), bool: v != 0; floats: as is
// (float32 rounded).
double StoreAs(DType t, double v);

using OpFn = std::function<absl::StatusOr<Tensor>(DagBuilder&, const std::vector<Tensor>&)>;

// A DAG whose placeholders are `inputs` (shapes and dtypes) and whose output is op's result.
// Also checks that the DAG's canonical text parses back to the same text.
absl::StatusOr<std::shared_ptr<const te::ComputeDag>> BuildOpDag(const std::vector<HostTensor>& inputs, const OpFn& op);

// Runs a DAG (one output) on the inputs: lowered unscheduled and interpreted, or compiled for
// the host into a .so loaded by the deploy runtime and run on `threads` threads.
absl::StatusOr<HostTensor> Interpret(const te::ComputeDag& dag, const std::vector<HostTensor>& inputs);
// Same for a scheduled State.
absl::StatusOr<HostTensor> InterpretState(const schedule::State& state, const std::vector<HostTensor>& inputs);
absl::StatusOr<HostTensor> RunSharedObject(const te::ComputeDag& dag, const std::vector<HostTensor>& inputs,
                                           int threads = 2);
// Same for a scheduled State, compiled for `target` (a target string; empty: the host).
absl::StatusOr<HostTensor> RunStateSharedObject(const schedule::State& state, const std::vector<HostTensor>& inputs,
                                                int threads = 2, const std::string& target = "");

// Build + interpret; a failure is reported to gtest and gives an empty tensor.
HostTensor RunOp(const std::vector<HostTensor>& inputs, const OpFn& op);
// The status of building the op (for the error-path tests).
absl::Status BuildStatus(const std::vector<HostTensor>& inputs, const OpFn& op);

// Element-wise |got - want| <= atol + rtol * |want|; NaN matches NaN, infinities match exactly.
// Same dtype and shape required.
::testing::AssertionResult AllClose(const HostTensor& got, const HostTensor& want, double atol = 0, double rtol = 0);
// The default tolerance of a dtype for short float computations (exact for integers).
double Tolerance(DType t);

// Every dtype of a set, for looping tests over dtypes.
std::vector<DType> DTypesOf(DTypeSet set);

}  // namespace tunefarm::ops::testing
