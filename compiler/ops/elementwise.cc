#include "compiler/ops/elementwise.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> BiasAdd(DagBuilder& b, const Tensor& x, const Tensor& bias, const BiasAddParams& p,
                               std::string name) {
  if (auto s = CheckShape("bias_add", "x", x.shape); !s.ok()) return s;
  if (auto s = CheckDType("bias_add", "x", x.dtype, DTypeSet::kNumeric); !s.ok()) return s;
  auto axis = NormalizeAxis("bias_add", p.axis, static_cast<int>(x.shape.size()));
  if (!axis.ok()) return axis.status();
  if (bias.dtype != x.dtype) return OpError("bias_add", "bias and x have different dtypes");
  if (bias.shape.size() != 1 || bias.shape[0] != x.shape[*axis])
    return OpError("bias_add", StrCat("bias has shape ", ShapeString(bias.shape), ", expected [", x.shape[*axis], "]"));
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) { return x(i) + bias(i[*axis]); });
}

Tensor BiasAdd(DagBuilder& b, const Tensor& x, const Tensor& bias, int axis, std::string name) {
  return OrDie(BiasAdd(b, x, bias, BiasAddParams{axis}, std::move(name)));
}

Tensor Relu(DagBuilder& b, const Tensor& x, std::string name) {
  UnaryParams p;
  p.op = UnaryOp::kRelu;
  return OrDie(Unary(b, x, p, std::move(name)));
}

Tensor Map(DagBuilder& b, const Tensor& x, te::Expr (*fn)(te::Expr), std::string name) {
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) { return fn(x(i)); });
}

Tensor Add(DagBuilder& b, const Tensor& x, const Tensor& y, std::string name) {
  return OrDie(Binary(b, x, y, BinaryOp::kAdd, std::move(name)));
}

Tensor Mul(DagBuilder& b, const Tensor& x, const Tensor& y, std::string name) {
  return OrDie(Binary(b, x, y, BinaryOp::kMul, std::move(name)));
}

}  // namespace tunefarm::ops
