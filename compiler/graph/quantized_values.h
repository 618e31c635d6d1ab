// Emitting the graph values of a quantized op's conversion (family_quantize.cc and
// packed_int8.cc): casts, reshapes, zero points, and the int32 result of an integer matmul or
// conv, which the packed 8-bit kernels give in a blocked layout.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/onnx_converter.h"

namespace tunefarm::graph::quantized {

Attrs CastTo(te::DType t);

// Emits `op` into a fresh value named after the node's output and `what`; returns the value.
absl::StatusOr<std::string> EmitValue(OnnxNode& n, const std::string& op, const std::vector<std::string>& inputs,
                                      Attrs attrs, const std::string& what);

// `value` reshaped to `shape` (a view: no copy).
absl::StatusOr<std::string> Reshaped(OnnxNode& n, const std::string& value, std::vector<int64_t> shape,
                                     const std::string& what);

// `value` reshaped to `shape` when it holds more than one element (a per-row or per-channel
// zero point or scale, laid out to broadcast against the operand).
absl::StatusOr<std::string> Broadcastable(OnnxNode& n, const std::string& value, std::vector<int64_t> shape,
                                          const std::string& what);

// Sum over `axes` of x (int32), keeping them when `keep`.
absl::StatusOr<std::string> SumOver(OnnxNode& n, const std::string& x, std::vector<int64_t> axes, bool keep,
                                    const std::string& what);

absl::Status NeedEightBit(OnnxNode& n, int i, const char* what);


// The per-row zero point of A [.., M, K] is [M]: reshaped to [M, 1].
std::vector<int64_t> RowShape(const TensorType& a);

// An integer matmul's or conv's int32 result. The packed kernels give it blocked ([..., M, N/16,
// 16]; [N, K/16, OH, OW, 16]), and an elementwise epilogue stays fused with the kernel in that
// shape; the ONNX output is then the value transposed by `unblock_perm` (when given) and
// reshaped to `plain_shape`.
struct IntegerResult {
  std::string value;  // int32; or float32/float64 holding exact integers (IntegerConv's float path)
  std::vector<int64_t> plain_shape;   // empty: `value` is already plain
  std::vector<int64_t> unblock_perm;  // empty: a reshape is enough
};

// Defines the node's output as `value` (the result or an epilogue of it), made plain.
absl::Status EmitPlainOutput(OnnxNode& n, const IntegerResult& result, const std::string& value);

}  // namespace tunefarm::graph::quantized
