// 2-D convolution in NCHW with stride, padding, dilation and groups (depthwise when
// groups == channels). float32, float64.
#pragma once

#include <array>
#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct Conv2dParams {
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 4> padding{0, 0, 0, 0};  // top, left, bottom, right (ONNX pads order)
  std::array<int64_t, 2> dilation{1, 1};
  int64_t groups = 1;
};

// input [N, C, H, W], weight [K, C / groups, R, S] -> [N, K, OH, OW] with
// OH = (H + top + bottom - dilation * (R - 1) - 1) / stride + 1 (likewise OW).
// Padding is a separate stage ("<name>.pad") the schedule can inline or compute at the conv.
absl::StatusOr<Tensor> Conv2d(DagBuilder& b, const Tensor& input, const Tensor& weight, const Conv2dParams& p,
                              std::string name = "conv2d");

// Output spatial extent of a convolution or pooling window along one axis (0 or less: empty).
int64_t ConvOutputExtent(int64_t in, int64_t pad_begin, int64_t pad_end, int64_t kernel, int64_t stride,
                         int64_t dilation);

// --- Short forms for callers with trusted shapes (tests, benchmarks): abort on bad shapes. ---
Tensor Conv2dNchw(DagBuilder& b, const Tensor& input, const Tensor& weight, const Conv2dParams& p,
                  std::string name = "conv2d");
// Zero (or `value`) padding of the last two axes of an NCHW tensor (see Pad for N-D).
Tensor Pad2d(DagBuilder& b, const Tensor& input, const std::array<int64_t, 4>& padding, double value,
             std::string name = "pad");

}  // namespace tunefarm::ops
