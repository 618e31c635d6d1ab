// Dense weight pre-transposition: a Gemm with transB = 1 whose B is a param (a PyTorch Linear
// layer: weight [out, in]) gets B transposed at compile time and transB = 0. The kernels
// vectorize the output-feature axis, which in [out, in] order is strided: every vector of B
// was a gather. Transposed, it is a contiguous load (mobilenet_v2's classifier: 4x faster).
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::passes {

absl::StatusOr<graph::Graph> PretransposeDenseWeights(const graph::Graph& g);

}  // namespace tunefarm::passes
