// Squares by multiplication: Pow(x, 2) with a constant exponent becomes Mul(x, x). A layer norm
// exported from PyTorch squares its centred input with Pow; pow is exp(2 log x) in the
// kernels, so that one op cost as much as the layer norm's two reductions together.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::passes {

absl::StatusOr<graph::Graph> SquareByMultiplication(const graph::Graph& g);

}  // namespace tunefarm::passes
