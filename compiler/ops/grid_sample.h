// GridSample (ONNX, as PyTorch's grid_sample): each output pixel samples the input at the
// normalized (x, y) in [-1, 1] its grid entry holds, by nearest, bilinear or bicubic
// interpolation, with zeros, border or reflection padding. Coordinates come from data, so the
// reads are gathers, each clamped into the input (and zeroed where zeros padding says so).
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

enum class GridSampleMode { kNearest, kBilinear, kBicubic };
enum class GridSamplePadding { kZeros, kBorder, kReflection };

struct GridSampleParams {
  GridSampleMode mode = GridSampleMode::kBilinear;
  GridSamplePadding padding = GridSamplePadding::kZeros;
  bool align_corners = false;
};

// x [N, C, H, W], grid [N, Ho, Wo, 2] of x's float dtype -> [N, C, Ho, Wo].
absl::StatusOr<Tensor> GridSample(DagBuilder& b, const Tensor& x, const Tensor& grid, const GridSampleParams& p,
                                  std::string name = "grid_sample");

}  // namespace tunefarm::ops
