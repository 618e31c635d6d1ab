// 2-D convolution in NCHW with stride, padding, dilation and groups (depthwise when
// groups == channels).
#pragma once

#include <array>
#include <string>

#include "compiler/te/compute_dag.h"

namespace tunefarm::ops {

using te::DagBuilder;
using Tensor = te::DagBuilder::Tensor;

struct Conv2dParams {
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 4> padding{0, 0, 0, 0};  // top, left, bottom, right
  std::array<int64_t, 2> dilation{1, 1};
  int64_t groups = 1;
};

// input [N, C, H, W], weight [K, C / groups, R, S] -> [N, K, OH, OW]
Tensor Conv2dNchw(DagBuilder& b, const Tensor& input, const Tensor& weight, const Conv2dParams& p,
                  std::string name = "conv2d");

// Zero (or `value`) padding of the last two axes of an NCHW tensor: a separate stage, which
// the schedule can inline or compute at its consumer.
Tensor Pad2d(DagBuilder& b, const Tensor& input, const std::array<int64_t, 4>& padding, double value,
             std::string name = "pad");

}  // namespace tunefarm::ops
