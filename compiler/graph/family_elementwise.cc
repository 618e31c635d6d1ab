// The elementwise and broadcast op family: unary math and activations (ops::Unary), Clip, Cast,
// binary arithmetic, comparisons and BitShift (ops::Binary), variadic Max/Min/Sum/Mean (a chain
// of binary stages), Where, Trilu, IsNaN/IsInf. Schemas, computes and ONNX converters.
#include <cmath>
#include <limits>

#include "compiler/graph/family_common.h"
#include "compiler/ops/binary.h"
#include "compiler/ops/float_class.h"
#include "compiler/ops/transform.h"
#include "compiler/ops/triangular.h"
#include "compiler/ops/unary.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using ops::BinaryOp;
using ops::UnaryOp;

absl::Status InferUnary(const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  *out = {in[0]};
  return absl::OkStatus();
}

absl::Status InferUnaryFloat(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "input"));
  return InferUnary(n, in, out);
}

// Broadcasts every input; `result` overrides the output dtype (bool for comparisons).
absl::Status InferBroadcast(const std::vector<TensorType>& in, size_t first, bool same_dtype,
                            std::optional<te::DType> result, std::vector<TensorType>* out) {
  std::vector<int64_t> shape = in[first].shape;
  for (size_t i = first + 1; i < in.size(); ++i) {
    if (same_dtype) TF_RETURN_IF_ERROR(SameDType(in, first, i));
    auto s = BroadcastShapes(shape, in[i].shape);
    if (!s.ok()) return s.status();
    shape = *s;
  }
  if (first > 0) {  // Where: the condition broadcasts too
    auto s = BroadcastShapes(shape, in[0].shape);
    if (!s.ok()) return s.status();
    shape = *s;
  }
  *out = {TensorType{result.value_or(in[first].dtype), shape}};
  return absl::OkStatus();
}

void Unary(OpRegistry* r, const std::string& name, std::vector<AttrSpec> attrs = {}, bool float_only = true) {
  r->Register({name, 1, 1, 1, std::move(attrs), float_only ? InferFn(InferUnaryFloat) : InferFn(InferUnary),
               OpPattern::kElementwise});
}

ComputeFn UnaryFn(UnaryOp op, const char* alpha = nullptr, const char* beta = nullptr) {
  return [=](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    ops::UnaryParams p{op, std::nullopt, std::nullopt};
    if (alpha) p.alpha = n.attrs.GetFloat(alpha);
    if (beta) p.beta = n.attrs.GetFloat(beta);
    return One(ops::Unary(b, in[0], p, n.name));
  };
}

ComputeFn BinaryFn(BinaryOp op) {
  return [=](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Binary(b, in[0], in[1], op, n.name));
  };
}

// Folds the inputs left to right with `op`; intermediate stages are "<name>.<i>". Mean scales
// the sum by 1/n in its last stage.
ComputeFn VariadicFn(BinaryOp op, bool mean) {
  return [=](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    if (mean && !te::IsFloat(in[0].dtype)) return absl::InvalidArgumentError("Mean needs float inputs");
    if (in.size() == 1) return One(ops::Copy(b, in[0], n.name));
    TeTensor acc = in[0];
    for (size_t i = 1; i < in.size(); ++i) {
      bool last = i + 1 == in.size() && !mean;
      auto next = ops::Binary(b, acc, in[i], op, last ? n.name : StrCat(n.name, ".", i));
      if (!next.ok()) return next.status();
      acc = *next;
    }
    if (!mean) return std::vector<TeTensor>{acc};
    te::Expr scale = te::Const(acc.dtype, 1.0 / static_cast<double>(in.size()));
    return std::vector<TeTensor>{b.Compute(n.name, acc.shape, [&](const te::DagBuilder::Axes& i) { return acc(i) * scale; })};
  };
}

absl::StatusOr<std::vector<TeTensor>> ClipCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  // The registry's defaults are -inf / +inf: an infinite bound does not clamp.
  ops::ClipParams p;
  double lo = n.attrs.GetFloat("min"), hi = n.attrs.GetFloat("max");
  if (!std::isinf(lo)) p.min = lo;
  if (!std::isinf(hi)) p.max = hi;
  return One(ops::Clip(b, in[0], p, n.name));
}

absl::StatusOr<std::vector<TeTensor>> CastCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  auto to = te::ParseDType(n.attrs.GetString("to"));
  if (!to) return absl::InvalidArgumentError(StrCat("unknown dtype '", n.attrs.GetString("to"), "'"));
  return One(ops::Cast(b, in[0], *to, n.name));
}

// Clip's bounds are inputs since opset 11. Constant bounds become attributes of one Clip; bounds
// that are runtime inputs (they change no shape) clip through Max then Min, which broadcast.
absl::Status ConvertClip(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  auto runtime = [&](int i) { return n.HasInput(i) && n.Constant(n.input(i)) == nullptr; };
  if (runtime(1) || runtime(2)) {
    TF_RETURN_IF_ERROR(n.FirstOutputOnly());
    std::string x = n.input(0);
    if (n.HasInput(1)) {
      if (!n.HasInput(2)) return n.Emit("Max", {x, n.input(1)}, {}, {n.output(0)});
      const std::string lower = n.UniqueName(StrCat(n.output(0), ".clip_min"));  // max(x, min)
      TF_RETURN_IF_ERROR(n.Emit("Max", {x, n.input(1)}, {}, {lower}, lower));
      x = lower;
    }
    return n.Emit("Min", {x, n.input(2)}, {}, {n.output(0)});
  }
  Attrs attrs = n.attrs();
  TF_RETURN_IF_ERROR(n.ScalarInputToAttr(1, "min", &attrs));
  TF_RETURN_IF_ERROR(n.ScalarInputToAttr(2, "max", &attrs));
  return n.Emit("Clip", {n.input(0)}, std::move(attrs), {n.output(0)});
}

// Trilu's diagonal offset k, a compile-time scalar input.
absl::Status ConvertTrilu(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  Attrs attrs = n.attrs();
  if (n.HasInput(1)) {
    auto k = n.ConstInt(1, "k");
    if (!k.ok()) return k.status();
    attrs.Set("k", *k);
  }
  return n.Emit("Trilu", {n.input(0)}, std::move(attrs), {n.output(0)});
}

}  // namespace

void RegisterElementwiseFamily(OpRegistry* r) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (const char* name : {"Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Reciprocal", "Floor", "Ceil", "Round",
                           "Sin", "Cos", "Softplus", "Softsign", "HardSwish", "Tan", "Sinh", "Cosh", "Asinh", "Acosh",
                           "Atanh", "Atan", "Asin", "Acos"})
    Unary(r, name);
  Unary(r, "Celu", {Float("alpha", 1.0)});
  auto to_bool = [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
    TF_RETURN_IF_ERROR(NeedFloat(in[0], "input"));
    *out = {TensorType{te::DType::kBool, in[0].shape}};
    return absl::OkStatus();
  };
  r->Register({"IsNaN", 1, 1, 1, {}, to_bool, OpPattern::kElementwise});
  r->Register({"IsInf", 1, 1, 1, {Int("detect_negative", 1), Int("detect_positive", 1)}, to_bool,
               OpPattern::kElementwise});
  r->Register({"Trilu", 1, 1, 1, {Int("upper", 1), Int("k", 0)},
               [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 if (in[0].shape.size() < 2) return Error(StrCat("Trilu needs rank >= 2, got ", in[0].ToString()));
                 *out = {in[0]};
                 return absl::OkStatus();
               },
               OpPattern::kElementwise});
  Unary(r, "Shrink", {Float("lambd", 0.5), Float("bias", 0.0)});
  Unary(r, "ThresholdedRelu", {Float("alpha", 1.0)});
  for (const char* name : {"Relu", "Neg", "Abs", "Sign", "Identity"}) Unary(r, name, {}, /*float_only=*/false);
  Unary(r, "Clip", {Float("min", -kInf), Float("max", kInf)}, false);
  Unary(r, "LeakyRelu", {Float("alpha", 0.01)});
  Unary(r, "Elu", {Float("alpha", 1.0)});
  Unary(r, "Selu", {Float("alpha", 1.67326319217681884765625), Float("gamma", 1.05070102214813232421875)});
  Unary(r, "HardSigmoid", {Float("alpha", 0.2), Float("beta", 0.5)});
  r->Register({"Not", 1, 1, 1, {},
               [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 if (in[0].dtype != te::DType::kBool) return Error("Not needs a bool input");
                 *out = {in[0]};
                 return absl::OkStatus();
               },
               OpPattern::kElementwise});
  r->Register({"Cast", 1, 1, 1, {Required("to", AttrKind::kString)},
               [](const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 auto to = te::ParseDType(n.attrs.GetString("to"));
                 if (!to) return Error(StrCat("Cast to unknown dtype '", n.attrs.GetString("to"), "'"));
                 *out = {TensorType{*to, in[0].shape}};
                 return absl::OkStatus();
               },
               OpPattern::kElementwise});

  auto binary = [r](const std::string& name, int max_inputs, bool same_dtype, std::optional<te::DType> result,
                    std::vector<AttrSpec> attrs = {}) {
    r->Register({name, max_inputs < 0 ? 1 : 2, max_inputs, 1, std::move(attrs),
                 [same_dtype, result](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                   return InferBroadcast(in, 0, same_dtype, result, out);
                 },
                 OpPattern::kBroadcast});
  };
  for (const char* name : {"Add", "Sub", "Mul", "Div", "PRelu"}) binary(name, 2, true, std::nullopt);
  binary("Mod", 2, true, std::nullopt, {Int("fmod", 0)});
  binary("Pow", 2, false, std::nullopt);
  r->Register({"BitShift", 2, 2, 1, {Required("direction", AttrKind::kString)},
               [](const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 const std::string direction = n.attrs.GetString("direction");
                 if (direction != "LEFT" && direction != "RIGHT")
                   return Error(StrCat("BitShift direction '", direction, "' is neither LEFT nor RIGHT"));
                 if (!te::IsUnsignedInt(in[0].dtype))
                   return Error(StrCat("BitShift shifts unsigned integers, got ", in[0].ToString()));
                 return InferBroadcast(in, 0, true, std::nullopt, out);
               },
               OpPattern::kBroadcast});
  for (const char* name : {"Max", "Min", "Sum", "Mean"}) binary(name, -1, true, std::nullopt);
  for (const char* name : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"})
    binary(name, 2, true, te::DType::kBool);
  r->Register({"Where", 3, 3, 1, {},
               [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 if (in[0].dtype != te::DType::kBool) return Error("Where's condition must be bool");
                 return InferBroadcast(in, 1, true, std::nullopt, out);
               },
               OpPattern::kBroadcast});

  r->RegisterOnnx({"Clip", 1, -1, ConvertClip});
  r->RegisterOnnx({"Trilu", 14, -1, ConvertTrilu});

  const std::pair<const char*, UnaryOp> kUnary[] = {
      {"Sigmoid", UnaryOp::kSigmoid}, {"Tanh", UnaryOp::kTanh},       {"Exp", UnaryOp::kExp},
      {"Log", UnaryOp::kLog},         {"Sqrt", UnaryOp::kSqrt},       {"Erf", UnaryOp::kErf},
      {"Reciprocal", UnaryOp::kReciprocal}, {"Floor", UnaryOp::kFloor}, {"Ceil", UnaryOp::kCeil},
      {"Round", UnaryOp::kRound},     {"Sin", UnaryOp::kSin},         {"Cos", UnaryOp::kCos},
      {"Softplus", UnaryOp::kSoftplus}, {"Softsign", UnaryOp::kSoftsign}, {"HardSwish", UnaryOp::kHardSwish},
      {"Relu", UnaryOp::kRelu},       {"Neg", UnaryOp::kNeg},         {"Abs", UnaryOp::kAbs},
      {"Sign", UnaryOp::kSign},       {"Not", UnaryOp::kNot},         {"Tan", UnaryOp::kTan},
      {"Sinh", UnaryOp::kSinh},       {"Cosh", UnaryOp::kCosh},       {"Asinh", UnaryOp::kAsinh},
      {"Acosh", UnaryOp::kAcosh},     {"Atanh", UnaryOp::kAtanh},     {"Atan", UnaryOp::kAtan},
      {"Asin", UnaryOp::kAsin},       {"Acos", UnaryOp::kAcos}};
  for (const auto& [name, op] : kUnary) Set(r, name, UnaryFn(op));
  Set(r, "LeakyRelu", UnaryFn(UnaryOp::kLeakyRelu, "alpha"));
  Set(r, "Elu", UnaryFn(UnaryOp::kElu, "alpha"));
  Set(r, "Selu", UnaryFn(UnaryOp::kSelu, "alpha", "gamma"));
  Set(r, "HardSigmoid", UnaryFn(UnaryOp::kHardSigmoid, "alpha", "beta"));
  Set(r, "Celu", UnaryFn(UnaryOp::kCelu, "alpha"));
  Set(r, "IsNaN", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::IsNaN(b, in[0], n.name));
  });
  Set(r, "IsInf", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::IsInf(b, in[0], n.attrs.GetInt("detect_positive") != 0, n.attrs.GetInt("detect_negative") != 0, n.name));
  });
  Set(r, "Trilu", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Triangular(b, in[0], {n.attrs.GetInt("upper") != 0, n.attrs.GetInt("k")}, n.name));
  });
  Set(r, "Shrink", UnaryFn(UnaryOp::kShrink, "lambd", "bias"));
  Set(r, "ThresholdedRelu", UnaryFn(UnaryOp::kThresholdedRelu, "alpha"));
  Set(r, "Identity", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Copy(b, in[0], n.name));
  });
  Set(r, "Clip", ClipCompute);
  Set(r, "Cast", CastCompute);

  const std::pair<const char*, BinaryOp> kBinary[] = {
      {"Add", BinaryOp::kAdd},     {"Sub", BinaryOp::kSub},         {"Mul", BinaryOp::kMul},
      {"Div", BinaryOp::kDiv},     {"Pow", BinaryOp::kPow},         {"PRelu", BinaryOp::kPRelu},
      {"Equal", BinaryOp::kEqual}, {"Less", BinaryOp::kLess},       {"Greater", BinaryOp::kGreater},
      {"LessOrEqual", BinaryOp::kLessEqual}, {"GreaterOrEqual", BinaryOp::kGreaterEqual},
      {"And", BinaryOp::kAnd},     {"Or", BinaryOp::kOr},           {"Xor", BinaryOp::kXor}};
  for (const auto& [name, op] : kBinary) Set(r, name, BinaryFn(op));
  Set(r, "Mod", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    BinaryOp op = n.attrs.GetInt("fmod") != 0 ? BinaryOp::kFmod : BinaryOp::kMod;
    return One(ops::Binary(b, in[0], in[1], op, n.name));
  });
  Set(r, "BitShift", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    const std::string direction = n.attrs.GetString("direction");
    if (direction != "LEFT" && direction != "RIGHT") return Unimplemented(StrCat("direction '", direction, "'"));
    return One(ops::Binary(b, in[0], in[1], direction == "LEFT" ? BinaryOp::kShiftLeft : BinaryOp::kShiftRight, n.name));
  });
  Set(r, "Max", VariadicFn(BinaryOp::kMax, false));
  Set(r, "Min", VariadicFn(BinaryOp::kMin, false));
  Set(r, "Sum", VariadicFn(BinaryOp::kAdd, false));
  Set(r, "Mean", VariadicFn(BinaryOp::kAdd, true));
  Set(r, "Where", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Where(b, in[0], in[1], in[2], n.name));
  });
}

}  // namespace tunefarm::graph
