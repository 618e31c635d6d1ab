#include "compiler/ops/unary.h"

#include <numbers>

#include "common/strings.h"

namespace tunefarm::ops {
namespace {

DTypeSet AllowedDTypes(UnaryOp op) {
  switch (op) {
    case UnaryOp::kRelu:
    case UnaryOp::kNeg: return DTypeSet::kSignedNumeric;
    case UnaryOp::kAbs:
    case UnaryOp::kSign: return DTypeSet::kNumeric;
    case UnaryOp::kNot: return DTypeSet::kBool;
    default: return DTypeSet::kFloat;
  }
}

Expr Floor(const Expr& x) { return te::Call(te::Intrinsic::kFloor, {x}); }

// Round half to even (ONNX Round, numpy.round): floor, then up when the fraction is above one
// half, or exactly one half and the floor is odd.
Expr RoundHalfEven(const Expr& x) {
  const DType t = x->dtype;
  Expr f = Floor(x), frac = x - f, half = te::Const(t, 0.5);
  Expr odd = f - Floor(f * half) * te::Const(t, 2);  // 0 or 1
  return te::Select(te::Gt(frac, half), f + te::Const(t, 1), te::Select(te::Lt(frac, half), f, f + odd));
}

// sin(x + shift * pi/2) with no libm call (codegen inlines every intrinsic): the argument is
// reduced to r in [-pi/4, pi/4] around the nearest multiple k of pi/2 (Cody-Waite, two-part
// pi/2), then sin(r) or cos(r) by Taylor polynomials (error below 1e-15 there) chosen and signed
// by the quadrant (k + shift) mod 4.
Expr SinShifted(const Expr& x, int shift) {
  const DType t = x->dtype;
  auto c = [t](double v) { return te::Const(t, v); };
  constexpr double kPio2Hi = 1.5703125;  // 8 significant bits: k * kPio2Hi is exact for |k| < 2^16
  constexpr double kPio2Lo = std::numbers::pi / 2 - kPio2Hi;
  Expr k = Floor(x * c(2 / std::numbers::pi) + c(0.5));
  Expr r = (x - k * c(kPio2Hi)) - k * c(kPio2Lo);
  Expr r2 = r * r;
  // Horner over r2 of the Taylor coefficients (sin: 1/1!, -1/3!, ...; cos: 1/0!, -1/2!, ...).
  auto horner = [&](int first) {
    double coef[8];
    double f = 1;
    for (int k = 0, n = first; k < 8; ++k, n += 2) {
      f = 1;
      for (int j = 2; j <= n; ++j) f *= j;
      coef[k] = (k % 2 ? -1.0 : 1.0) / f;
    }
    Expr acc = c(coef[7]);
    for (int k = 6; k >= 0; --k) acc = c(coef[k]) + r2 * acc;
    return acc;
  };
  Expr s = r * horner(1), co = horner(0);
  Expr q = k + c(shift);
  q = q - Floor(q * c(0.25)) * c(4);  // 0, 1, 2 or 3
  return te::Select(te::Lt(q, c(0.5)), s,
                    te::Select(te::Lt(q, c(1.5)), co, te::Select(te::Lt(q, c(2.5)), -s, -co)));
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
    case UnaryOp::kReciprocal: return "reciprocal";
    case UnaryOp::kRound: return "round";
    case UnaryOp::kSin: return "sin";
    case UnaryOp::kCos: return "cos";
    case UnaryOp::kSoftsign: return "softsign";
    case UnaryOp::kElu: return "elu";
    case UnaryOp::kSelu: return "selu";
    case UnaryOp::kSign: return "sign";
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
    case UnaryOp::kReciprocal: return c(1) / x;
    case UnaryOp::kRound: return RoundHalfEven(x);
    case UnaryOp::kSin: return SinShifted(x, 0);
    case UnaryOp::kCos: return SinShifted(x, 1);
    case UnaryOp::kSoftsign: return x / (c(1) + te::Abs(x));
    case UnaryOp::kElu: return te::Select(te::Lt(x, c(0)), c(p.alpha.value_or(1.0)) * (te::Exp(x) - c(1)), x);
    case UnaryOp::kSelu: {
      double alpha = p.alpha.value_or(1.67326319217681884765625), gamma = p.beta.value_or(1.05070102214813232421875);
      return c(gamma) * te::Select(te::Le(x, c(0)), c(alpha) * (te::Exp(x) - c(1)), x);
    }
    case UnaryOp::kSign:
      return te::Select(te::Gt(x, c(0)), ScalarConst(t, 1), te::Select(te::Lt(x, c(0)), ScalarConst(t, -1), c(0)));
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
