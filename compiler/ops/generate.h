// Ops that generate values from attributes and index arithmetic rather than reading data: a
// range, an identity-like matrix, signal windows, and one-hot encoding.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

// [count] of dtype: start + i * delta (ONNX Range once start, limit and delta are known). The
// arithmetic is in dtype, as the kernel computes it.
absl::StatusOr<Tensor> Range(DagBuilder& b, DType dtype, double start, double delta, int64_t count,
                             std::string name = "range");

// [rows, cols] of dtype: 1 where column - row == k, else 0 (ONNX EyeLike).
absl::StatusOr<Tensor> EyeLike(DagBuilder& b, DType dtype, int64_t rows, int64_t cols, int64_t k,
                               std::string name = "eye_like");

enum class WindowKind { kHann, kHamming, kBlackman };

// [size] of dtype: the window (ONNX HannWindow, HammingWindow, BlackmanWindow), computed in
// float64. Periodic windows have period size, symmetric ones size - 1.
absl::StatusOr<Tensor> Window(DagBuilder& b, WindowKind kind, int64_t size, bool periodic, DType dtype,
                              std::string name = "window");

struct OneHotParams {
  int64_t depth = 0;
  int64_t axis = -1;  // where the new axis goes in the output (may be negative)
};

// indices [I...] (any numeric dtype), values [2] = (off, on) -> [I... with depth inserted at
// axis]: on where the index (negative ones count from depth) equals the position on the new
// axis, off elsewhere (also for indices outside [-depth, depth)).
absl::StatusOr<Tensor> OneHot(DagBuilder& b, const Tensor& indices, const Tensor& values, const OneHotParams& p,
                              std::string name = "one_hot");

}  // namespace tunefarm::ops
