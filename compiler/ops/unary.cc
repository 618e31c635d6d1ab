#include "compiler/ops/unary.h"

#include <numbers>
#include <vector>

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

// Round half to even (ONNX Round, numpy.round): one instruction where the target has it
// (vrndscale, frintn), 16 with floor before.
Expr RoundHalfEven(const Expr& x) { return te::Call(te::Intrinsic::kRoundEven, {x}); }

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
    case UnaryOp::kTan: return "tan";
    case UnaryOp::kSinh: return "sinh";
    case UnaryOp::kCosh: return "cosh";
    case UnaryOp::kAsinh: return "asinh";
    case UnaryOp::kAcosh: return "acosh";
    case UnaryOp::kAtanh: return "atanh";
    case UnaryOp::kAtan: return "atan";
    case UnaryOp::kAsin: return "asin";
    case UnaryOp::kAcos: return "acos";
    case UnaryOp::kCelu: return "celu";
    case UnaryOp::kShrink: return "shrink";
    case UnaryOp::kThresholdedRelu: return "thresholded_relu";
  }
  return "?";
}

// atan(x) for every x, after Cephes: |x| is reduced through atan(t) = pi/2 - atan(1/t) above
// tan(3pi/8) and pi/4 + atan((t - 1) / (t + 1)) above `mid`, then a polynomial (float32: odd,
// degree 9, error about 1e-7) or a rational function (float64: degree 4/5 in x^2, about 1e-16).
Expr Atan(const Expr& x) {
  const DType t = x->dtype;
  const bool f64 = t == DType::kFloat64;
  auto c = [t](double v) { return te::Const(t, v); };
  auto horner = [&](const std::vector<double>& coefficients, const Expr& z) {
    Expr acc = c(coefficients[0]);
    for (size_t i = 1; i < coefficients.size(); ++i) acc = acc * z + c(coefficients[i]);
    return acc;
  };
  Expr a = te::Abs(x);
  Expr big = te::Gt(a, c(2.414213562373095)), mid = te::Gt(a, c(f64 ? 0.66 : 0.4142135623730950));
  Expr base = te::Select(big, c(std::numbers::pi / 2), te::Select(mid, c(std::numbers::pi / 4), c(0)));
  Expr r = te::Select(big, c(-1) / a, te::Select(mid, (a - c(1)) / (a + c(1)), a));
  Expr z = r * r;
  Expr poly;
  if (f64) {
    Expr p = horner({-8.750608600031904122785e-1, -1.615753718733365076637e1, -7.500855792314704667340e1,
                     -1.228866684490136173410e2, -6.485021904942025371773e1}, z);
    Expr q = horner({1.0, 2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2,
                     4.853903996359136964868e2, 1.945506571482613964425e2}, z);
    poly = r + r * z * p / q;
  } else {
    poly = horner({8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1}, z) * z * r + r;
  }
  Expr magnitude = base + poly;
  return te::Select(te::Lt(x, c(0)), -magnitude, magnitude);
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
    case UnaryOp::kTan: return SinShifted(x, 0) / SinShifted(x, 1);
    case UnaryOp::kSinh: return (te::Exp(x) - te::Exp(-x)) * c(0.5);
    case UnaryOp::kCosh: return (te::Exp(x) + te::Exp(-x)) * c(0.5);
    case UnaryOp::kAsinh: {
      Expr a = te::Abs(x), magnitude = te::Log(a + te::Sqrt(a * a + c(1)));
      return te::Select(te::Lt(x, c(0)), -magnitude, magnitude);
    }
    case UnaryOp::kAcosh: return te::Log(x + te::Sqrt(x * x - c(1)));
    case UnaryOp::kAtanh: return te::Log((c(1) + x) / (c(1) - x)) * c(0.5);
    case UnaryOp::kAtan: return Atan(x);
    // (1 - x)(1 + x) keeps the precision 1 - x^2 loses near |x| = 1.
    case UnaryOp::kAsin: return Atan(x / te::Sqrt((c(1) - x) * (c(1) + x)));
    case UnaryOp::kAcos: return c(std::numbers::pi / 2) - Atan(x / te::Sqrt((c(1) - x) * (c(1) + x)));
    case UnaryOp::kCelu: {
      const double alpha = p.alpha.value_or(1.0);
      return te::Max(x, c(0)) + te::Min(c(0), c(alpha) * (te::Exp(x / c(alpha)) - c(1)));
    }
    case UnaryOp::kShrink: {
      const double lambd = p.alpha.value_or(0.5), bias = p.beta.value_or(0.0);
      return te::Select(te::Lt(x, c(-lambd)), x + c(bias), te::Select(te::Gt(x, c(lambd)), x - c(bias), c(0)));
    }
    case UnaryOp::kThresholdedRelu: return te::Select(te::Gt(x, c(p.alpha.value_or(1.0))), x, c(0));
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
