// The 8-bit operands of the packed kernels in the signedness the kernels read. They multiply
// uint8 data by int8 weights (x86's vpdpbusd); int8 data and uint8 weights are shifted by 128
// first: x + 128 is read as uint8, w - 128 as int8. A product of centered values is unchanged
// when the zero point shifts with its operand: x - zx = (x + 128) - (zx + 128). So int8 x int8
// (symmetric activations, as many QDQ models have) and uint8 x uint8 (ONNX's own test cases,
// older quantizers) run on the same kernels, exactly.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/onnx_converter.h"

namespace tunefarm::graph::quantized {

struct ShiftedOperand {
  std::string value;  // the operand as the kernel reads it
  int zp = -1;        // the node input holding its zero point (may be absent)
  int shift = 0;      // added to the input and to its zero point: 0, +128 or -128
};

// What reading 8-bit `have` as `want` adds to each value: 0, +128 (int8 as uint8) or -128.
int ShiftTo(te::DType have, te::DType want);

// Node input `input`, whose zero point is input `zp`, as `want` (uint8 or int8): the input as it
// is when it has that dtype, else shifted by 128 (folded at compile time for a constant).
absl::StatusOr<ShiftedOperand> ReadAs(OnnxNode& n, int input, int zp, te::DType want, const std::string& what);

// The shifted zero point when it is one compile-time number (the input's, or 0 without one).
std::optional<double> ConstantZeroPoint(OnnxNode& n, const ShiftedOperand& op);

// True when the shifted zero point is known to be zero everywhere: it needs no correction.
bool ZeroPointIsZero(OnnxNode& n, const ShiftedOperand& op);

// The shifted zero point as int32, reshaped to `shape` when it holds several values.
absl::StatusOr<std::string> WideZeroPoint(OnnxNode& n, const ShiftedOperand& op, std::vector<int64_t> shape,
                                          const std::string& what);

}  // namespace tunefarm::graph::quantized
