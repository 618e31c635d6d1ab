// Graph inputs whose values are fixed at compile time (`--bind NAME=FILE`): many exported models
// feed a shape-like operand (Reshape's shape, Slice's starts, Pad's pads) as an input, which the
// importer needs as a constant. The same specs serve `compile`, `inspect` and `tune` (a job keeps
// them beside its model path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/frontend/onnx_importer.h"

namespace tunefarm::frontend {

// The largest value a binding reads: shape-like operands, or at most a weight a model takes as
// an input.
inline constexpr uint64_t kMaxBoundInputBytes = uint64_t{1} << 30;

// Reads each "NAME=FILE" (.npy or ONNX TensorProto .pb; a raw .bin has no dtype or shape) into
// options->constant_inputs. Errors name the flag, the input and the file.
absl::Status ReadBoundInputs(const std::vector<std::string>& specs, ImportOptions* options);

}  // namespace tunefarm::frontend
