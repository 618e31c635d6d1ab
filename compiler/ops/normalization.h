// Softmax and layer normalization over the last axis, as several stages (reductions and
// elementwise), so schedules can fuse and place them.
#pragma once

#include <string>

#include "compiler/te/compute_dag.h"

namespace tunefarm::ops {

using te::DagBuilder;
using Tensor = te::DagBuilder::Tensor;

// out = exp(x - max(x)) / sum(exp(x - max(x))) along the last axis.
Tensor Softmax(DagBuilder& b, const Tensor& x, std::string name = "softmax");
// out = (x - mean) / sqrt(var + eps) * gamma + beta along the last axis (gamma, beta: [last]).
Tensor LayerNorm(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps,
                 std::string name = "layer_norm");

}  // namespace tunefarm::ops
