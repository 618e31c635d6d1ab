// Elementwise ops: bias add, and the short forms tests and benchmarks use. The full unary and
// binary sets (with broadcasting) are in unary.h and binary.h.
#pragma once

#include <string>

#include "compiler/ops/binary.h"
#include "compiler/ops/op_common.h"
#include "compiler/ops/unary.h"

namespace tunefarm::ops {

struct BiasAddParams {
  int64_t axis = 1;  // may be negative
};
// out[..., i, ...] = x[..., i, ...] + bias[i] with i on `axis`; bias is 1-D, numeric dtypes.
absl::StatusOr<Tensor> BiasAdd(DagBuilder& b, const Tensor& x, const Tensor& bias, const BiasAddParams& p,
                               std::string name = "bias_add");

// --- Short forms for callers with trusted shapes (tests, benchmarks): abort on bad shapes. ---
Tensor BiasAdd(DagBuilder& b, const Tensor& x, const Tensor& bias, int axis, std::string name = "bias_add");
Tensor Relu(DagBuilder& b, const Tensor& x, std::string name = "relu");
// out = fn(x) elementwise, for any expression builder fn.
Tensor Map(DagBuilder& b, const Tensor& x, te::Expr (*fn)(te::Expr), std::string name);
// out = x op y elementwise (numpy broadcasting).
Tensor Add(DagBuilder& b, const Tensor& x, const Tensor& y, std::string name = "add");
Tensor Mul(DagBuilder& b, const Tensor& x, const Tensor& y, std::string name = "mul");

}  // namespace tunefarm::ops
