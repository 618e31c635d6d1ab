#include "compiler/ops/binary.h"

#include <cmath>

#include "common/strings.h"

namespace tunefarm::ops {
namespace {

using te::ExprKind;

DTypeSet AllowedDTypes(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEqual: return DTypeSet::kAny;
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
    case BinaryOp::kXor: return DTypeSet::kBool;
    case BinaryOp::kPRelu: return DTypeSet::kSignedNumeric;
    default: return DTypeSet::kNumeric;
  }
}

bool IsShift(BinaryOp op) { return op == BinaryOp::kShiftLeft || op == BinaryOp::kShiftRight; }

// x << y or x >> y for unsigned x, y, without shift instructions in the IR: x times or divided by
// 2^y, with 2^y built from y's bits (a product of 2^(2^b) for each set bit b).
Expr ShiftExpr(const Expr& x, const Expr& y, bool left) {
  const DType t = x->dtype;
  const int bits = te::DTypeBytes(t) * 8;
  Expr power = te::Const(t, 1);
  for (int b = 0; (1 << b) < bits; ++b) {
    Expr bit_set = te::Ne((y / te::Const(t, 1 << b)) % te::Const(t, 2), te::Const(t, 0));
    power = power * te::Select(bit_set, te::Const(t, std::ldexp(1.0, 1 << b)), te::Const(t, 1));
  }
  return te::Select(te::Ge(y, te::Const(t, bits)), te::Const(t, 0), left ? x * power : x / power);
}

bool PowDType(DType t) { return te::IsFloat(t) || t == DType::kInt32 || t == DType::kInt64; }

// Round half away from zero.
Expr Round(const Expr& r) {
  Expr half = te::Const(r->dtype, 0.5);
  return te::Select(te::Lt(r, te::Const(r->dtype, 0)), -te::Call(te::Intrinsic::kFloor, {half - r}),
                    te::Call(te::Intrinsic::kFloor, {r + half}));
}

// Real power as numpy defines it: a negative base with an integral exponent keeps its sign
// rule; with a fractional exponent it is NaN. (The kernels' pow is exp(y log x), x >= 0 only.)
Expr RealPow(const Expr& x, const Expr& y) {
  const DType t = x->dtype;
  Expr p = te::Pow(te::Abs(x), y);
  Expr integral = te::Eq(te::Call(te::Intrinsic::kFloor, {y}), y);
  Expr odd = te::Ne(te::Call(te::Intrinsic::kFloor, {y * te::Const(t, 0.5)}) * te::Const(t, 2), y);
  Expr negative_base = te::Select(integral, te::Select(odd, -p, p), te::Const(t, NAN));
  return te::Select(te::Lt(x, te::Const(t, 0)), negative_base, p);
}

Expr PowExpr(const Expr& x, const Expr& y) {
  if (te::IsFloat(x->dtype)) return RealPow(x, te::Cast(x->dtype, y));
  // Integer power through float64 (exact below 2^53 up to the rounding of exp/log, which the
  // rounding to nearest removes); a negative exponent gives 0 except for bases 1 and -1.
  Expr r = RealPow(te::Cast(DType::kFloat64, x), te::Cast(DType::kFloat64, y));
  Expr rounded = te::Select(te::Lt(te::Abs(r), te::Const(DType::kFloat64, 1)), te::Const(DType::kFloat64, 0), Round(r));
  return te::Cast(x->dtype, te::Cast(DType::kInt64, rounded));
}

Expr DivExpr(const Expr& x, const Expr& y) {
  const DType t = x->dtype;
  if (te::IsFloat(t)) return x / y;
  // Select evaluates both arms, so the division itself must never trap: a zero divisor becomes
  // 1, and -1 (lowest / -1 overflows) is handled as a wrapping negation.
  Expr zero = te::Const(t, 0), one = te::Const(t, 1);
  if (!te::IsSigned(t)) return x / te::Select(te::Eq(y, zero), one, y);
  Expr minus_one = te::Eq(y, te::Const(t, -1));
  Expr safe = te::Select(te::Or(te::Eq(y, zero), minus_one), one, y);
  return te::Select(minus_one, zero - x, TruncDiv(x, safe));
}

// x - trunc(x / y) * y; an integer y == 0 gives x (the division never traps).
Expr FmodExpr(const Expr& x, const Expr& y) {
  const DType t = x->dtype;
  if (!te::IsFloat(t)) return x - DivExpr(x, y) * y;
  // x - trunc(x / y) * y. For float32 it runs in float64, where trunc(x / y) * y is exact while
  // the quotient is under 2^29, so the remainder is C's fmod exactly (in float32 it lost up to
  // an ulp of x per step). float64 keeps the formula's own rounding.
  const DType wide = t == DType::kFloat32 ? DType::kFloat64 : t;
  Expr xw = wide == t ? x : te::Cast(wide, x), yw = wide == t ? y : te::Cast(wide, y);
  Expr q = xw / yw;
  Expr trunc = te::Select(te::Lt(q, te::Const(wide, 0)), te::Call(te::Intrinsic::kCeil, {q}),
                          te::Call(te::Intrinsic::kFloor, {q}));
  Expr r = xw - trunc * yw;
  return wide == t ? r : te::Cast(t, r);
}

// Python's remainder: a non-zero C remainder whose sign differs from the divisor's moves by y.
Expr ModExpr(const Expr& x, const Expr& y) {
  Expr r = FmodExpr(x, y);
  if (!te::IsSigned(x->dtype) && !te::IsFloat(x->dtype)) return r;
  Expr zero = te::Const(x->dtype, 0);
  Expr differ = te::Ne(te::Lt(r, zero), te::Lt(y, zero));
  return te::Select(te::And(te::Ne(r, zero), differ), r + y, r);
}

Expr BinaryExpr(BinaryOp op, const Expr& x, const Expr& y) {
  switch (op) {
    case BinaryOp::kAdd: return x + y;
    case BinaryOp::kSub: return x - y;
    case BinaryOp::kMul: return x * y;
    case BinaryOp::kDiv: return DivExpr(x, y);
    case BinaryOp::kPow: return PowExpr(x, y);
    case BinaryOp::kMax: return te::Max(x, y);
    case BinaryOp::kMin: return te::Min(x, y);
    case BinaryOp::kEqual: return te::Eq(x, y);
    case BinaryOp::kLess: return te::Lt(x, y);
    case BinaryOp::kLessEqual: return te::Le(x, y);
    case BinaryOp::kGreater: return te::Gt(x, y);
    case BinaryOp::kGreaterEqual: return te::Ge(x, y);
    case BinaryOp::kAnd: return te::And(x, y);
    case BinaryOp::kOr: return te::Or(x, y);
    case BinaryOp::kXor: return te::Ne(x, y);
    case BinaryOp::kMod: return ModExpr(x, y);
    case BinaryOp::kFmod: return FmodExpr(x, y);
    case BinaryOp::kShiftLeft: return ShiftExpr(x, y, true);
    case BinaryOp::kShiftRight: return ShiftExpr(x, y, false);
    case BinaryOp::kPRelu: return te::Select(te::Lt(x, te::Const(x->dtype, 0)), x * y, x);
  }
  return Expr();
}

}  // namespace

std::string_view BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "add";
    case BinaryOp::kSub: return "sub";
    case BinaryOp::kMul: return "mul";
    case BinaryOp::kDiv: return "div";
    case BinaryOp::kPow: return "pow";
    case BinaryOp::kMax: return "max";
    case BinaryOp::kMin: return "min";
    case BinaryOp::kEqual: return "equal";
    case BinaryOp::kLess: return "less";
    case BinaryOp::kLessEqual: return "less_equal";
    case BinaryOp::kGreater: return "greater";
    case BinaryOp::kGreaterEqual: return "greater_equal";
    case BinaryOp::kAnd: return "and";
    case BinaryOp::kOr: return "or";
    case BinaryOp::kXor: return "xor";
    case BinaryOp::kMod: return "mod";
    case BinaryOp::kFmod: return "fmod";
    case BinaryOp::kPRelu: return "prelu";
    case BinaryOp::kShiftLeft: return "shift_left";
    case BinaryOp::kShiftRight: return "shift_right";
  }
  return "?";
}

absl::StatusOr<Tensor> Binary(DagBuilder& b, const Tensor& x, const Tensor& y, BinaryOp op, std::string name) {
  std::string_view op_name = BinaryOpName(op);
  if (auto s = CheckShape(op_name, "x", x.shape); !s.ok()) return s;
  if (auto s = CheckShape(op_name, "y", y.shape); !s.ok()) return s;
  if (op == BinaryOp::kPow) {
    // ONNX's Pow: the base is float32, float64, int32 or int64, the exponent any number type.
    if (!PowDType(x.dtype) || !InDTypeSet(y.dtype, DTypeSet::kNumeric))
      return OpError(op_name, StrCat("operands are ", te::DTypeName(x.dtype), " and ", te::DTypeName(y.dtype),
                                     ", expected a float32, float64, int32 or int64 base and an integer, float32 "
                                     "or float64 exponent"));
  } else {
    if (auto s = CheckDType(op_name, "x", x.dtype, AllowedDTypes(op)); !s.ok()) return s;
    if (IsShift(op) && (!te::IsInt(x.dtype) || te::IsSigned(x.dtype)))
      return OpError(op_name, StrCat("operands are ", te::DTypeName(x.dtype), ", expected unsigned integers"));
    if (x.dtype != y.dtype)
      return OpError(op_name, StrCat("operands have different dtypes ", te::DTypeName(x.dtype), " and ",
                                     te::DTypeName(y.dtype)));
  }
  auto shape = BroadcastShapes(op_name, {x.shape, y.shape});
  if (!shape.ok()) return shape.status();
  if (name.empty()) name = std::string(op_name);
  return b.Compute(std::move(name), *shape,
                   [&](const Axes& i) { return BinaryExpr(op, BroadcastRead(x, i), BroadcastRead(y, i)); });
}

absl::StatusOr<Tensor> Where(DagBuilder& b, const Tensor& cond, const Tensor& x, const Tensor& y, std::string name) {
  for (const auto& [t, what] : {std::pair{&cond, "cond"}, {&x, "x"}, {&y, "y"}})
    if (auto s = CheckShape("where", what, t->shape); !s.ok()) return s;
  if (auto s = CheckDType("where", "cond", cond.dtype, DTypeSet::kBool); !s.ok()) return s;
  if (x.dtype != y.dtype)
    return OpError("where", StrCat("x is ", te::DTypeName(x.dtype), " but y is ", te::DTypeName(y.dtype)));
  auto shape = BroadcastShapes("where", {cond.shape, x.shape, y.shape});
  if (!shape.ok()) return shape.status();
  return b.Compute(std::move(name), *shape, [&](const Axes& i) {
    return te::Select(BroadcastRead(cond, i), BroadcastRead(x, i), BroadcastRead(y, i));
  });
}

}  // namespace tunefarm::ops
