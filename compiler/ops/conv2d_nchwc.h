// 2-D convolution in the blocked layout NCHW[x]c (layout.h makes it), with its weight layout
// OIHW[x]i[y]o. float32, float64.
#pragma once

#include <string>

#include "compiler/ops/conv2d.h"
#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

// data [N, C/x, H, W, x], weight [K/y, Cg/xi, R, S, xi, y] -> [N, K/y, OH, OW, y], where
// C = (C/x) * x and K = (K/y) * y count the padded channels, Cg = C / groups.
//  - groups == 1: weight from PackConv2dWeight(w, x, y); padded channels carry zeros.
//  - groups > 1 (depthwise included): C and K must divide by groups with no channel padding;
//    weight from PackConv2dWeight(w, xi, y) with xi dividing Cg (xi = 1 for depthwise).
// Stride, padding (a separate "<name>.pad" stage over H and W) and dilation as in Conv2d.
absl::StatusOr<Tensor> Conv2dNchwc(DagBuilder& b, const Tensor& data, const Tensor& weight, const Conv2dParams& p,
                                   std::string name = "conv2d_nchwc");

}  // namespace tunefarm::ops
