// Elementwise ops as compute definitions (more arrive with the op library).
#pragma once

#include <string>

#include "compiler/te/compute_dag.h"

namespace tunefarm::ops {

using te::DagBuilder;
using Tensor = te::DagBuilder::Tensor;

// out[..., i, ...] = x[..., i, ...] + bias[i] with i on `axis`.
Tensor BiasAdd(DagBuilder& b, const Tensor& x, const Tensor& bias, int axis, std::string name = "bias_add");
Tensor Relu(DagBuilder& b, const Tensor& x, std::string name = "relu");
// out = fn(x) elementwise, for any expression builder fn.
Tensor Map(DagBuilder& b, const Tensor& x, te::Expr (*fn)(te::Expr), std::string name);
// out = x op y elementwise (same shapes).
Tensor Add(DagBuilder& b, const Tensor& x, const Tensor& y, std::string name = "add");
Tensor Mul(DagBuilder& b, const Tensor& x, const Tensor& y, std::string name = "mul");

}  // namespace tunefarm::ops
