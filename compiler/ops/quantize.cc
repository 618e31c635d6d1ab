#include "compiler/ops/quantize.h"

#include "common/strings.h"
#include "compiler/ops/unary.h"

namespace tunefarm::ops {
namespace {

// The per-element parameter of `param` (a scalar, or one value per index of axis `a`) at `i`.
Expr ParamAt(const Tensor& param, const Axes& i, int a) {
  if (param.shape.empty()) return param({});
  if (NumElements(param.shape) == 1 && param.shape.size() == 1) return param({Expr(0)});
  return param({i[a]});
}

bool IsScalarParam(const Tensor& param) {
  return param.shape.empty() || (param.shape.size() == 1 && param.shape[0] == 1);
}

// The axis the parameters index (0 when they are scalars: then `axis` is not read), after
// checking that each is a scalar or holds one value per index of that axis of x.
absl::StatusOr<int> ParamAxis(std::string_view op, const Tensor& x, const Tensor& scale, const Tensor* zero_point,
                              int64_t axis) {
  if (IsScalarParam(scale) && (zero_point == nullptr || IsScalarParam(*zero_point))) return 0;
  auto a = NormalizeAxis(op, axis, static_cast<int>(x.shape.size()));
  if (!a.ok()) return a.status();
  for (const Tensor* param : {&scale, zero_point})
    if (param != nullptr && !IsScalarParam(*param) && param->shape != Shape{x.shape[*a]})
      return OpError(op, StrCat("scale and zero point must be scalars or hold one value per index of axis ", *a));
  return *a;
}

Expr QuantizeExpr(const Expr& x, const Expr& scale, const Expr& zero_point, DType out) {
  const DType t = x->dtype;
  const double lo = out == DType::kUInt8 ? 0 : -128, hi = out == DType::kUInt8 ? 255 : 127;
  Expr q = UnaryExpr({UnaryOp::kRound, std::nullopt, std::nullopt}, x / scale) + te::Cast(t, zero_point);
  return te::Cast(out, te::Min(te::Max(q, te::Const(t, lo)), te::Const(t, hi)));
}

}  // namespace

absl::StatusOr<Tensor> QuantizeLinear(DagBuilder& b, const Tensor& x, const Tensor& scale, const Tensor* zero_point,
                                      int64_t axis, std::string name) {
  constexpr std::string_view kOp = "quantize_linear";
  if (auto s = CheckShape(kOp, "x", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "x", x.dtype, DTypeSet::kFloat); !s.ok()) return s;
  if (scale.dtype != x.dtype) return OpError(kOp, "scale and x differ in dtype");
  auto a = ParamAxis(kOp, x, scale, zero_point, axis);
  if (!a.ok()) return a.status();
  const DType out = zero_point != nullptr ? zero_point->dtype : DType::kUInt8;
  if (out != DType::kUInt8 && out != DType::kInt8) return OpError(kOp, "the zero point must be uint8 or int8");
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    Expr zp = zero_point != nullptr ? ParamAt(*zero_point, i, *a) : te::IntImm(DType::kUInt8, 0);
    return QuantizeExpr(x(i), ParamAt(scale, i, *a), zp, out);
  });
}

absl::StatusOr<Tensor> DequantizeLinear(DagBuilder& b, const Tensor& x, const Tensor& scale, const Tensor* zero_point,
                                        int64_t axis, std::string name) {
  constexpr std::string_view kOp = "dequantize_linear";
  if (auto s = CheckShape(kOp, "x", x.shape); !s.ok()) return s;
  if (x.dtype != DType::kUInt8 && x.dtype != DType::kInt8 && x.dtype != DType::kInt32)
    return OpError(kOp, "x must be uint8, int8 or int32");
  if (auto s = CheckDType(kOp, "scale", scale.dtype, DTypeSet::kFloat); !s.ok()) return s;
  if (zero_point != nullptr && zero_point->dtype != x.dtype) return OpError(kOp, "the zero point and x differ in dtype");
  auto a = ParamAxis(kOp, x, scale, zero_point, axis);
  if (!a.ok()) return a.status();
  const DType t = scale.dtype;
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    Expr v = te::Cast(t, x(i));
    if (zero_point != nullptr) v = v - te::Cast(t, ParamAt(*zero_point, i, *a));
    return v * ParamAt(scale, i, *a);
  });
}

absl::StatusOr<std::vector<Tensor>> DynamicQuantizeLinear(DagBuilder& b, const Tensor& x, std::string name) {
  constexpr std::string_view kOp = "dynamic_quantize_linear";
  if (auto s = CheckShape(kOp, "x", x.shape); !s.ok()) return s;
  if (x.dtype != DType::kFloat32) return OpError(kOp, "x must be float32");
  const DType t = x.dtype;
  auto all = [&](const Axes& r) { return x(r); };
  // The range always holds 0, so that 0 quantizes exactly.
  Tensor lo = b.Reduce(StrCat(name, ".min"), te::ReduceKind::kMin, {}, x.shape,
                       [&](const Axes&, const Axes& r) { return te::Min(all(r), te::Const(t, 0)); });
  Tensor hi = b.Reduce(StrCat(name, ".max"), te::ReduceKind::kMax, {}, x.shape,
                       [&](const Axes&, const Axes& r) { return te::Max(all(r), te::Const(t, 0)); });
  Tensor scale = b.Compute(StrCat(name, ".scale"), {}, [&](const Axes&) { return (hi({}) - lo({})) / te::Const(t, 255); });
  Tensor zero_point = b.Compute(StrCat(name, ".zero_point"), {}, [&](const Axes&) {
    return QuantizeExpr(-lo({}), scale({}), te::IntImm(DType::kUInt8, 0), DType::kUInt8);
  });
  Tensor y = b.Compute(std::move(name), x.shape,
                       [&](const Axes& i) { return QuantizeExpr(x(i), scale({}), zero_point({}), DType::kUInt8); });
  return std::vector<Tensor>{y, scale, zero_point};
}

}  // namespace tunefarm::ops
