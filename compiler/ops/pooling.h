// Max and average pooling over [N, C, D...] (1-D, 2-D, 3-D, ...) with padding, dilation, ceil
// mode and count_include_pad (ONNX MaxPool / AveragePool), max pool indices (MaxPool's second
// output), and global pooling.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

enum class PoolKind { kMax, kAvg };

struct PoolParams {
  PoolKind kind = PoolKind::kMax;
  std::vector<int64_t> kernel;    // one per spatial axis
  std::vector<int64_t> stride;    // empty: 1
  std::vector<int64_t> padding;   // begins, then ends (ONNX pads order); empty: 0
  std::vector<int64_t> dilation;  // empty: 1
  // Output extent ceil((D + pads - dilation * (k - 1) - 1) / stride) + 1, dropping a last
  // window that would start in the end padding (as ONNX and PyTorch do).
  bool ceil_mode = false;
  // Average only: the divisor counts the padding (not the ceil-mode overhang past it).
  bool count_include_pad = false;
};

// Max: every numeric dtype (padding never wins). Avg: float32, float64.
// Padding is a separate "<name>.pad" stage the schedule can inline.
absl::StatusOr<Tensor> Pool(DagBuilder& b, const Tensor& x, const PoolParams& p, std::string name = "pool");

// How MaxPoolIndices flattens the input: row-major over every axis, or (ONNX storage_order = 1)
// row-major over N and C and column-major over the spatial axes, the first varying fastest.
enum class PoolIndexOrder { kRowMajor, kColumnMajor };

// The argmax of a max pool (ONNX MaxPool's Indices): int64 of y's shape, each element the index,
// in x flattened to 1-D by `order`, of the input element y's element was taken from; `y` is
// Pool(b, x, p) with p.kind = kMax. Padding is never chosen; of equal elements the first in window
// scan order is. Every window must hold an input element. Same dtypes as Pool.
absl::StatusOr<Tensor> MaxPoolIndices(DagBuilder& b, const Tensor& x, const Tensor& y, const PoolParams& p,
                                      PoolIndexOrder order, std::string name = "max_pool_indices");

// Pools every spatial axis: [N, C, D...] -> [N, C, 1...]. Same dtypes as Pool.
absl::StatusOr<Tensor> GlobalPool(DagBuilder& b, const Tensor& x, PoolKind kind, std::string name = "global_pool");

// --- Short form for callers with trusted shapes (tests, benchmarks): aborts on bad shapes. ---
struct Pool2dParams {
  PoolKind kind = PoolKind::kMax;
  std::array<int64_t, 2> kernel{2, 2};
  std::array<int64_t, 2> stride{2, 2};
  std::array<int64_t, 4> padding{0, 0, 0, 0};  // top, left, bottom, right
  bool count_include_pad = true;               // avg only
};
Tensor Pool2dNchw(DagBuilder& b, const Tensor& input, const Pool2dParams& p, std::string name = "pool2d");

// MaxUnpool over [N, C, H, W]: each value of x returns to the position its index (MaxPool's
// Indices: flattened over [N, C, IH, IW], the unpooled extent) names; the rest of the output is
// 0. A larger output extent (ONNX's output_shape) adds zeros after the unpooled block, as ONNX's
// reference does. Each output pixel looks only at the pooled pixels whose window covers it
// (indices from MaxPool lie inside their window): about (kernel / stride)^2 reads per pixel.
struct UnpoolParams {
  std::array<int64_t, 2> kernel{1, 1}, stride{1, 1};
  std::array<int64_t, 2> pad_begin{0, 0};
  std::array<int64_t, 2> unpooled{1, 1};  // IH, IW: the extent the indices are flattened over
  std::array<int64_t, 2> output{1, 1};    // OH, OW >= IH, IW
};
absl::StatusOr<Tensor> MaxUnpool(DagBuilder& b, const Tensor& x, const Tensor& indices, const UnpoolParams& p,
                                 std::string name = "max_unpool");

}  // namespace tunefarm::ops
