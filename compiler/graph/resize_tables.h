// ONNX Resize's coordinate rules, on the host: for one axis, which input positions each output
// position reads and with which weights (ops/resize.h takes these tables). Follows the ONNX
// reference implementation (onnx/reference/ops/op_resize.py), which produced the conformance
// outputs, where it differs from the operator text: align_corners and pytorch_half_pixel use the
// unrounded output length scale * input length, and a one-point pytorch_half_pixel axis maps to
// -0.5.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tunefarm::graph {

struct ResizeRule {
  std::string mode = "nearest";                                   // nearest, linear, cubic
  std::string coordinate_transformation_mode = "half_pixel";      // see CoordinateModes()
  std::string nearest_mode = "round_prefer_floor";                // round_prefer_floor/ceil, floor, ceil
  double cubic_coeff_a = -0.75;
  bool exclude_outside = false;
};

// One axis's table: `taps` entries per output position, row-major [out][taps].
struct ResizeTable {
  int64_t taps = 1;
  std::vector<int64_t> index;  // clamped into [0, in)
  std::vector<double> weight;  // all 0 where the coordinate is outside (tf_crop_and_resize)
  bool extrapolates = false;   // some position is outside
  bool IsIdentity(int64_t in) const;  // out == in and position o reads o with weight 1
};

// Checks the rule's strings; the error names the attribute and the value.
absl::Status CheckResizeRule(const ResizeRule& rule);

// The table of one axis of `in` positions resized to `out` with `scale` (the given scale, or
// out / in when sizes were given); roi_start/roi_end are this axis's region of interest
// (tf_crop_and_resize only).
ResizeTable MakeResizeTable(const ResizeRule& rule, int64_t in, int64_t out, double scale, double roi_start,
                            double roi_end);

}  // namespace tunefarm::graph
