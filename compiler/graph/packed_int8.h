// The packed 8-bit kernels of quantized models (ops/int8_matmul.h, ops/int8_conv.h: x86 VNNI
// where the cpu has it) and the conversions that lead ONNX's integer ops to them: uint8 data by
// int8 weights (int8 data and uint8 weights shifted by 128 first: shifted_operand.h), packed at
// compile time when the weights are constants, the zero points applied after the kernel in its
// blocked layout, where the epilogue stays fused with it.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/onnx_converter.h"
#include "compiler/graph/op_registry.h"
#include "compiler/graph/quantized_values.h"

namespace tunefarm::graph {

// True when A ([..., M, K]) times B ([K, N]), both 8-bit, fits the packed matmul: K a multiple
// of 4 and N of 16.
bool FitsPackedInt8MatMul(OnnxNode& n, int a, int b);
// sum_k (a - a_zp)(b - b_zp) of inputs a, b and their optional zero points (per row of A, per
// column of B, or one value), as a blocked [..., M, N/16, 16] result.
absl::StatusOr<quantized::IntegerResult> PackedIntegerMatMul(OnnxNode& n, int a, int a_zp, int b, int b_zp);

// True when a 2-D conv of x (8-bit NCHW) by w (8-bit OIHW) fits the packed conv: per group, C a
// multiple of 4 and K of 16 (a grouped conv is one packed conv per group; depthwise does not fit), x's zero point a constant (the padding value) and w's zero point absent
// or all zeros for int8 weights (as ONNX Runtime's quantizer writes them), all 128 for uint8.
bool FitsPackedInt8Conv(OnnxNode& n, int x, int x_zp, int w, int w_zp);
// The conv (with the node's window attributes) of x - x_zp by w - w_zp, plus the optional int32
// bias input, as a blocked [N, K/16, OH, OW, 16] result.
absl::StatusOr<quantized::IntegerResult> PackedIntegerConv(OnnxNode& n, int x, int x_zp, int w, int w_zp, int bias);

// Registers the internal graph ops MatMulU8S8 and ConvU8S8.
void RegisterPackedInt8Ops(OpRegistry* r);

}  // namespace tunefarm::graph
