// RoiAlign (ONNX 10 and 16): each region of interest, a box in input coordinates read from data,
// is pooled to a fixed output_height x output_width grid. Each output bin averages (or takes
// the max of) sampling_ratio x sampling_ratio bilinear samples of the input, as ONNX's reference
// and ONNX Runtime compute them: a sample more than one pixel outside the image contributes 0,
// one just outside is clamped to the border. The sample count must be fixed: the adaptive count
// (sampling_ratio 0, which depends on each box's size) is refused.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct RoiAlignParams {
  int64_t output_height = 1, output_width = 1;
  int64_t sampling_ratio = 2;
  double spatial_scale = 1.0;
  bool half_pixel = true;  // coordinate_transformation_mode: half_pixel, else output_half_pixel
  bool max_mode = false;   // mode "max", else "avg"
};

// x [N, C, H, W], rois [R, 4] (x1, y1, x2, y2) of x's float dtype, batch_indices [R] (int) ->
// [R, C, output_height, output_width]. A batch index outside [0, N) is clamped into it.
absl::StatusOr<Tensor> RoiAlign(DagBuilder& b, const Tensor& x, const Tensor& rois, const Tensor& batch_indices,
                                const RoiAlignParams& p, std::string name = "roi_align");

}  // namespace tunefarm::ops
