#include "compiler/ops/elementwise.h"

#include "compiler/common/check.h"

namespace tunefarm::ops {

Tensor BiasAdd(DagBuilder& b, const Tensor& x, const Tensor& bias, int axis, std::string name) {
  TF_CHECK(bias.shape.size() == 1 && bias.shape[0] == x.shape[axis], "bias length must match the axis");
  return b.Compute(std::move(name), x.shape, [&](const DagBuilder::Axes& i) { return x(i) + bias(i[axis]); });
}

Tensor Relu(DagBuilder& b, const Tensor& x, std::string name) {
  return b.Compute(std::move(name), x.shape,
                   [&](const DagBuilder::Axes& i) { return te::Max(x(i), te::Const(x.dtype, 0)); });
}

Tensor Map(DagBuilder& b, const Tensor& x, te::Expr (*fn)(te::Expr), std::string name) {
  return b.Compute(std::move(name), x.shape, [&](const DagBuilder::Axes& i) { return fn(x(i)); });
}

namespace {
Tensor Zip(DagBuilder& b, const Tensor& x, const Tensor& y, te::ExprKind kind, std::string name) {
  TF_CHECK(x.shape == y.shape, "elementwise operands must have the same shape");
  return b.Compute(std::move(name), x.shape, [&](const DagBuilder::Axes& i) { return te::Binary(kind, x(i), y(i)); });
}
}  // namespace

Tensor Add(DagBuilder& b, const Tensor& x, const Tensor& y, std::string name) {
  return Zip(b, x, y, te::ExprKind::kAdd, std::move(name));
}
Tensor Mul(DagBuilder& b, const Tensor& x, const Tensor& y, std::string name) {
  return Zip(b, x, y, te::ExprKind::kMul, std::move(name));
}

}  // namespace tunefarm::ops
