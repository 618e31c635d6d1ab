// Reductions over any set of axes (ONNX ReduceSum/Mean/Max/Min/Prod).
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

enum class ReduceOp {
  kSum,   // float32, float64, int32, int64 (integers wrap)
  kMean,  // same dtypes; a sum stage, then * (1 / n) (integers: the sum divided by n, truncated)
  kMax,   // every numeric dtype
  kMin,   // every numeric dtype
  kProd,  // float32, float64, int32, int64 (integers wrap)
};
std::string_view ReduceOpName(ReduceOp op);

struct ReduceParams {
  ReduceOp op = ReduceOp::kSum;
  std::vector<int64_t> axes;  // may be negative; empty reduces every axis (ONNX's default)
  bool keepdims = true;       // reduced axes stay as size 1; otherwise they are dropped
};

// Reducing every axis without keepdims gives a 0-d tensor (shape []).
absl::StatusOr<Tensor> Reduce(DagBuilder& b, const Tensor& x, const ReduceParams& p, std::string name = "");

}  // namespace tunefarm::ops
