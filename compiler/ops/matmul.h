// Matrix multiplication ops as compute definitions.
#pragma once

#include <string>

#include "compiler/te/compute_dag.h"

namespace tunefarm::ops {

using te::DagBuilder;
using Tensor = te::DagBuilder::Tensor;

// C[m, n] = sum_k A[m, k] * B[k, n]   (B[n, k] when transpose_b)
Tensor Matmul(DagBuilder& b, const Tensor& a, const Tensor& w, bool transpose_b = false,
              std::string name = "matmul");

}  // namespace tunefarm::ops
