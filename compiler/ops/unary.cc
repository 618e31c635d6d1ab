#include "compiler/ops/unary.h"

#include <numbers>

#include "compiler/common/strings.h"

namespace tunefarm::ops {
namespace {

DTypeSet AllowedDTypes(UnaryOp op) {
  switch (op) {
    case UnaryOp::kRelu:
    case UnaryOp::kNeg: return DTypeSet::kSignedNumeric;
    case UnaryOp::kAbs: return DTypeSet::kNumeric;
    case UnaryOp::kNot: return DTypeSet::kBool;
    default: return DTypeSet::kFloat;
  }
}

}  // namespace

std::string_view UnaryOpName(UnaryOp op) {
  switch (op) {
    case UnaryOp::kRelu: return "relu";
    case UnaryOp::kLeakyRelu: return "leaky_relu";
    case UnaryOp::kSigmoid: return "sigmoid";
    case UnaryOp::kTanh: return "tanh";
    case UnaryOp::kExp: return "exp";
    case UnaryOp::kLog: return "log";
    case UnaryOp::kSqrt: return "sqrt";
    case UnaryOp::kAbs: return "abs";
    case UnaryOp::kNeg: return "neg";
    case UnaryOp::kErf: return "erf";
    case UnaryOp::kGelu: return "gelu";
    case UnaryOp::kHardSigmoid: return "hard_sigmoid";
    case UnaryOp::kHardSwish: return "hard_swish";
    case UnaryOp::kSoftplus: return "softplus";
    case UnaryOp::kFloor: return "floor";
    case UnaryOp::kCeil: return "ceil";
    case UnaryOp::kNot: return "not";
  }
  return "?";
}

Expr UnaryExpr(const UnaryParams& p, const Expr& x) {
  const DType t = x->dtype;
  auto c = [t](double v) { return te::Const(t, v); };
  auto unit_clamp = [&](const Expr& v) { return te::Max(te::Min(v, c(1)), c(0)); };
  switch (p.op) {
    case UnaryOp::kRelu: return te::Max(x, c(0));
    case UnaryOp::kLeakyRelu: return te::Select(te::Lt(x, c(0)), x * c(p.alpha.value_or(0.01)), x);
    case UnaryOp::kSigmoid: return te::Sigmoid(x);
    case UnaryOp::kTanh: return te::Tanh(x);
    case UnaryOp::kExp: return te::Exp(x);
    case UnaryOp::kLog: return te::Log(x);
    case UnaryOp::kSqrt: return te::Sqrt(x);
    case UnaryOp::kAbs: return te::Abs(x);
    case UnaryOp::kNeg: return -x;
    case UnaryOp::kErf: return te::Erf(x);
    case UnaryOp::kGelu: return x * c(0.5) * (c(1) + te::Erf(x * c(1 / std::numbers::sqrt2)));
    case UnaryOp::kHardSigmoid: return unit_clamp(x * c(p.alpha.value_or(0.2)) + c(p.beta.value_or(0.5)));
    case UnaryOp::kHardSwish: return x * unit_clamp(x * c(1.0 / 6) + c(0.5));
    // max(x, 0) + log(1 + exp(-|x|)): equal to log(1 + exp(x)) without overflowing exp.
    case UnaryOp::kSoftplus: return te::Max(x, c(0)) + te::Log(c(1) + te::Exp(-te::Abs(x)));
    case UnaryOp::kFloor: return te::Call(te::Intrinsic::kFloor, {x});
    case UnaryOp::kCeil: return te::Call(te::Intrinsic::kCeil, {x});
    case UnaryOp::kNot: return te::Not(x);
  }
  return Expr();
}

absl::StatusOr<Tensor> Unary(DagBuilder& b, const Tensor& x, const UnaryParams& p, std::string name) {
  std::string_view op = UnaryOpName(p.op);
  if (auto s = CheckShape(op, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(op, "input", x.dtype, AllowedDTypes(p.op)); !s.ok()) return s;
  if (name.empty()) name = std::string(op);
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) { return UnaryExpr(p, x(i)); });
}

absl::StatusOr<Tensor> Clip(DagBuilder& b, const Tensor& x, const ClipParams& p, std::string name) {
  if (auto s = CheckShape("clip", "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType("clip", "input", x.dtype, DTypeSet::kNumeric); !s.ok()) return s;
  if (p.min && p.max && *p.min > *p.max)
    return OpError("clip", StrCat("min ", *p.min, " is greater than max ", *p.max));
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    Expr v = x(i);
    if (p.min) v = te::Max(v, ScalarConst(x.dtype, *p.min));
    if (p.max) v = te::Min(v, ScalarConst(x.dtype, *p.max));
    return v;
  });
}

absl::StatusOr<Tensor> Cast(DagBuilder& b, const Tensor& x, DType to, std::string name) {
  if (auto s = CheckShape("cast", "input", x.shape); !s.ok()) return s;
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) { return te::Cast(to, x(i)); });
}

}  // namespace tunefarm::ops
