// Elementwise and broadcast ops: unary math, activations, binary arithmetic, comparisons, Where.
#include <limits>

#include "compiler/graph/ops_common.h"

namespace tunefarm::graph {
namespace {
using namespace ops;

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

}  // namespace

void RegisterElementwiseOps(OpRegistry* r) {
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
  for (const char* name : {"Max", "Min", "Sum", "Mean"}) binary(name, -1, true, std::nullopt);
  for (const char* name : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"})
    binary(name, 2, true, te::DType::kBool);
  r->Register({"Where", 3, 3, 1, {},
               [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 if (in[0].dtype != te::DType::kBool) return Error("Where's condition must be bool");
                 return InferBroadcast(in, 1, true, std::nullopt, out);
               },
               OpPattern::kBroadcast});
}

}  // namespace tunefarm::graph
