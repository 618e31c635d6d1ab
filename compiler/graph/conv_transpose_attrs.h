// ConvTranspose's attributes resolved to explicit numbers, shared by its type inference and its
// compute: ONNX lets output_shape or auto_pad stand in for pads, resolved here as the spec says.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::graph {

struct ConvTransposeWindow {
  std::vector<int64_t> kernel, strides, pads, dilations, output_padding;  // pads: begins, then ends
  std::vector<int64_t> output_shape;  // the full [N, K, O...]
};

// x: [N, C, D...], w: [C, K / group, R...].
absl::StatusOr<ConvTransposeWindow> ResolveConvTranspose(const Node& n, const std::vector<int64_t>& x,
                                                         const std::vector<int64_t>& w);

}  // namespace tunefarm::graph
