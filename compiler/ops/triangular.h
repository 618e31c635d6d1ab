// The upper or lower triangle of the last two axes (ONNX Trilu): elements outside it become 0.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

struct TriangularParams {
  bool upper = true;  // keep column - row >= k; lower: column - row <= k
  int64_t k = 0;      // diagonal offset (positive: above the main diagonal)
};

absl::StatusOr<Tensor> Triangular(DagBuilder& b, const Tensor& x, const TriangularParams& p, std::string name = "trilu");

}  // namespace tunefarm::ops
