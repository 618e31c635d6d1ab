#include "compiler/te/expr.h"

#include <array>
#include <cmath>
#include <string_view>

#include "common/check.h"

namespace tunefarm::te {
namespace {

constexpr std::array<std::string_view, 25> kKindNames = {
    "int",  "float", "var", "axis", "raxis", "add", "sub", "mul", "div",    "mod",  "min",  "max", "eq",
    "ne",   "lt",    "le",  "gt",   "ge",    "and", "or",  "not", "select", "cast", "call", "load",
};
constexpr std::array<std::string_view, 12> kIntrinsicNames = {
    "exp", "log", "sqrt", "rsqrt", "tanh", "erf", "sigmoid", "pow", "abs", "floor", "ceil", "roundeven",
};

Expr Make(ExprKind kind, DType dtype, std::vector<Expr> operands, int64_t iv = 0, double fv = 0) {
  auto n = std::make_shared<ExprNode>();
  n->kind = kind;
  n->dtype = dtype;
  n->int_value = iv;
  n->float_value = fv;
  n->operands = std::move(operands);
  return Expr(std::move(n));
}

bool IsImm(const Expr& e) {
  return e->kind == ExprKind::kIntImm || e->kind == ExprKind::kFloatImm;
}

double ImmValue(const Expr& e) {
  return e->kind == ExprKind::kIntImm ? IntDTypeValue(e->dtype, e->int_value) : e->float_value;
}

// Makes the operand dtypes agree by converting an immediate to the other side's dtype.
void Unify(Expr& a, Expr& b) {
  if (a->dtype == b->dtype) return;
  if (IsImm(b)) {
    b = b->kind == ExprKind::kIntImm && !IsFloat(a->dtype) ? IntImm(a->dtype, b->int_value)
                                                            : Const(a->dtype, ImmValue(b));
  } else if (IsImm(a)) {
    a = a->kind == ExprKind::kIntImm && !IsFloat(b->dtype) ? IntImm(b->dtype, a->int_value)
                                                            : Const(b->dtype, ImmValue(a));
  }
  TF_CHECK(a->dtype == b->dtype, "binary operands of different dtypes");
}

}  // namespace

std::string_view ExprKindName(ExprKind k) { return kKindNames[static_cast<int>(k)]; }
std::string_view IntrinsicName(Intrinsic f) { return kIntrinsicNames[static_cast<int>(f)]; }

bool ParseExprKind(std::string_view name, ExprKind* out) {
  for (size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == name) return *out = static_cast<ExprKind>(i), true;
  return false;
}

bool ParseIntrinsic(std::string_view name, Intrinsic* out) {
  for (size_t i = 0; i < kIntrinsicNames.size(); ++i)
    if (kIntrinsicNames[i] == name) return *out = static_cast<Intrinsic>(i), true;
  return false;
}

int IntrinsicArity(Intrinsic f) { return f == Intrinsic::kPow ? 2 : 1; }

Expr::Expr(int v) : Expr(IntImm(kIndexType, v)) {}
Expr::Expr(int64_t v) : Expr(IntImm(kIndexType, v)) {}

Expr IntImm(DType t, int64_t v) {
  TF_CHECK(!IsFloat(t) && !IsStorageFloat(t), "IntImm of a float dtype");
  return Make(ExprKind::kIntImm, t, {}, WrapToIntDType(t, v));
}

Expr FloatImm(DType t, double v) {
  TF_CHECK(IsFloat(t), "FloatImm of a non-float dtype");
  if (t == DType::kFloat32) v = static_cast<float>(v);  // store exactly what the kernel sees
  return Make(ExprKind::kFloatImm, t, {}, 0, v);
}

Expr Const(DType t, double v) {
  if (IsFloat(t)) return FloatImm(t, v);
  return IntImm(t, SaturateToIntDType(t, v));
}

Expr MakeVar(std::string name, int64_t id, DType t) {
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::kVar;
  n->dtype = t;
  n->int_value = id;
  n->name = std::move(name);
  return Expr(std::move(n));
}

Expr Axis(int index) { return Make(ExprKind::kAxis, kIndexType, {}, index); }
Expr ReduceAxis(int index) { return Make(ExprKind::kReduceAxis, kIndexType, {}, index); }

Expr Binary(ExprKind kind, Expr a, Expr b) {
  TF_CHECK(a.defined() && b.defined(), "undefined operand");
  Unify(a, b);
  DType out = a->dtype;
  if (IsCompare(kind)) {
    TF_CHECK(!IsStorageFloat(a->dtype), "comparison of float16/bfloat16 values (cast them to float32 first)");
    out = DType::kBool;
  } else if (kind == ExprKind::kAnd || kind == ExprKind::kOr) {
    TF_CHECK(a->dtype == DType::kBool, "and/or of non-bool operands");
  } else {
    TF_CHECK(IsBinaryArith(kind), "not a binary kind");
    TF_CHECK(!IsStorageFloat(out), "arithmetic on float16/bfloat16 values (cast them to float32 first)");
    TF_CHECK(!(kind == ExprKind::kMod && IsFloat(out)), "float modulo is not supported");
  }
  return Make(kind, out, {std::move(a), std::move(b)});
}

Expr Not(Expr a) {
  TF_CHECK(a->dtype == DType::kBool, "not of a non-bool");
  return Make(ExprKind::kNot, DType::kBool, {std::move(a)});
}

Expr Select(Expr cond, Expr t, Expr f) {
  TF_CHECK(cond->dtype == DType::kBool, "select condition must be bool");
  Unify(t, f);
  DType d = t->dtype;
  return Make(ExprKind::kSelect, d, {std::move(cond), std::move(t), std::move(f)});
}

Expr Cast(DType t, Expr a) {
  if (a->dtype == t) return a;
  if (IsImm(a) && !IsStorageFloat(t)) {
    if (t == DType::kBool) return IntImm(t, ImmValue(a) != 0);
    if (IsFloat(t)) return FloatImm(t, ImmValue(a));
    // Integer to integer keeps the bit pattern (wrapped); float to integer saturates, as the
    // kernels' fptosi.sat / fptoui.sat do.
    return IntImm(t, a->kind == ExprKind::kIntImm ? a->int_value : SaturateToIntDType(t, a->float_value));
  }
  return Make(ExprKind::kCast, t, {std::move(a)});
}

Expr Call(Intrinsic f, std::vector<Expr> args) {
  TF_CHECK(static_cast<int>(args.size()) == IntrinsicArity(f), "intrinsic arity");
  if (args.size() == 2) Unify(args[0], args[1]);
  bool needs_float = f != Intrinsic::kAbs;
  TF_CHECK(!needs_float || IsFloat(args[0]->dtype), "math intrinsic on a non-float");
  DType d = args[0]->dtype;
  return Make(ExprKind::kCall, d, std::move(args), static_cast<int64_t>(f));
}

Expr Load(DType t, int64_t tensor, std::vector<Expr> indices) {
  for (const Expr& i : indices) TF_CHECK(IsInt(i->dtype), "load index must be an integer");
  return Make(ExprKind::kLoad, t, std::move(indices), tensor);
}

Expr operator+(Expr a, Expr b) { return Binary(ExprKind::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return Binary(ExprKind::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return Binary(ExprKind::kMul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return Binary(ExprKind::kDiv, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return Binary(ExprKind::kMod, std::move(a), std::move(b)); }
Expr operator-(Expr a) { return Binary(ExprKind::kSub, Const(a->dtype, 0), a); }
Expr Min(Expr a, Expr b) { return Binary(ExprKind::kMin, std::move(a), std::move(b)); }
Expr Max(Expr a, Expr b) { return Binary(ExprKind::kMax, std::move(a), std::move(b)); }
Expr Eq(Expr a, Expr b) { return Binary(ExprKind::kEq, std::move(a), std::move(b)); }
Expr Ne(Expr a, Expr b) { return Binary(ExprKind::kNe, std::move(a), std::move(b)); }
Expr Lt(Expr a, Expr b) { return Binary(ExprKind::kLt, std::move(a), std::move(b)); }
Expr Le(Expr a, Expr b) { return Binary(ExprKind::kLe, std::move(a), std::move(b)); }
Expr Gt(Expr a, Expr b) { return Binary(ExprKind::kGt, std::move(a), std::move(b)); }
Expr Ge(Expr a, Expr b) { return Binary(ExprKind::kGe, std::move(a), std::move(b)); }
Expr And(Expr a, Expr b) { return Binary(ExprKind::kAnd, std::move(a), std::move(b)); }
Expr Or(Expr a, Expr b) { return Binary(ExprKind::kOr, std::move(a), std::move(b)); }
Expr Exp(Expr a) { return Call(Intrinsic::kExp, {std::move(a)}); }
Expr Log(Expr a) { return Call(Intrinsic::kLog, {std::move(a)}); }
Expr Sqrt(Expr a) { return Call(Intrinsic::kSqrt, {std::move(a)}); }
Expr Rsqrt(Expr a) { return Call(Intrinsic::kRsqrt, {std::move(a)}); }
Expr Tanh(Expr a) { return Call(Intrinsic::kTanh, {std::move(a)}); }
Expr Erf(Expr a) { return Call(Intrinsic::kErf, {std::move(a)}); }
Expr Sigmoid(Expr a) { return Call(Intrinsic::kSigmoid, {std::move(a)}); }
Expr Pow(Expr a, Expr b) { return Call(Intrinsic::kPow, {std::move(a), std::move(b)}); }
Expr Abs(Expr a) { return Call(Intrinsic::kAbs, {std::move(a)}); }

Expr WithOperands(const Expr& e, std::vector<Expr> operands) {
  bool same = operands.size() == e->operands.size();
  for (size_t i = 0; same && i < operands.size(); ++i) same = operands[i].same_as(e->operands[i]);
  if (same) return e;
  // Built field by field: copying *e would copy the old operand list only to replace it.
  auto n = std::make_shared<ExprNode>();
  n->kind = e->kind;
  n->dtype = e->dtype;
  n->int_value = e->int_value;
  n->float_value = e->float_value;
  n->operands = std::move(operands);
  n->name = e->name;
  return Expr(std::move(n));
}

bool IsConstInt(const Expr& e, int64_t* value) {
  if (!e.defined() || e->kind != ExprKind::kIntImm) return false;
  if (value) *value = e->int_value;
  return true;
}

bool StructurallyEqual(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (a->kind != b->kind || a->dtype != b->dtype || a->int_value != b->int_value ||
      a->operands.size() != b->operands.size())
    return false;
  // Compare float payloads bitwise so NaN equals NaN and -0 differs from 0.
  if (std::signbit(a->float_value) != std::signbit(b->float_value)) return false;
  if (!(a->float_value == b->float_value) &&
      !(std::isnan(a->float_value) && std::isnan(b->float_value)))
    return false;
  for (size_t i = 0; i < a->operands.size(); ++i)
    if (!StructurallyEqual(a->operands[i], b->operands[i])) return false;
  return true;
}

}  // namespace tunefarm::te
