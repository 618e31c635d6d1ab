// The 2-D convolution of uint8 data by int8 weights in int32, blocked for x86 VNNI the way the
// int8 matmul is (int8_matmul.h): four adjacent input channels per byte group, sixteen output
// channels per vector.
//
//   x [N, C/B, H, W, B] uint8 with B a multiple of 4 (4, or 16 to match the blocked output of
//     another such conv, so that no transpose runs between two of them), already padded (the
//     caller pads with x's zero point, so the padding adds nothing once the zero point is taken
//     out);
//   w [K/16, C/4, R, S, 16, 4] int8: element (k, c, r, s) of OIHW weights at
//     [k / 16, c / 4, r, s, k % 16, c % 4];
//   y [N, K/16, OH, OW, 16] int32 = sum over c, r, s of x * w.
//
// Each update adds the four products of four adjacent channels, so a schedule that vectorizes
// the 16 output lanes reads the same four bytes of x in every lane and 64 adjacent bytes of w:
// one vpdpbusd (codegen/dot_product.h). Exact: the sums wrap like int32.
#pragma once

#include <string>

#include "compiler/ops/int8_matmul.h"

namespace tunefarm::ops {

struct Int8ConvParams {
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
};

absl::StatusOr<Tensor> Conv2dU8S8(DagBuilder& b, const Tensor& x, const Tensor& w, const Int8ConvParams& p,
                                  std::string name = "conv2d_u8s8");

}  // namespace tunefarm::ops
