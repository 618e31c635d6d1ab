// Transposed convolution (ONNX ConvTranspose) over [N, C, D...]: 1-D and 2-D (and 3-D).
// float32, float64.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct ConvTransposeParams {
  std::vector<int64_t> stride;          // one per spatial axis; empty: 1
  std::vector<int64_t> padding;         // begins, then ends (ONNX pads order); empty: 0
  std::vector<int64_t> output_padding;  // added at the end of each axis; empty: 0
  std::vector<int64_t> dilation;        // empty: 1
  int64_t groups = 1;
};

// input [N, C, D...], weight [C, K / groups, R...] (ONNX's layout) -> [N, K, O...] with
// O = (D - 1) * stride - pad_begin - pad_end + dilation * (R - 1) + output_padding + 1.
// Computed as TVM does: a stage "<name>.dilate_pad" spreads the input by the stride and pads it
// by dilation * (R - 1) - pad (cropping where that is negative), then a stride-1 convolution
// with the flipped kernel.
absl::StatusOr<Tensor> ConvTranspose(DagBuilder& b, const Tensor& input, const Tensor& weight,
                                     const ConvTransposeParams& p, std::string name = "conv_transpose");

}  // namespace tunefarm::ops
