// The quantization family: QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (8-bit,
// per tensor or per channel along `axis`), the ops that bring int8 models in and out of float;
// and the integer ops of quantized models, converted to graph ops: MatMulInteger and
// ConvInteger widen to int32, subtract the zero points and run MatMul / Conv in int32 (exact);
// QLinearMatMul and QLinearConv do the same, then requantize as ONNX's reference does (the
// int32 result times in_scale * w_scale / y_scale in float64, rounded half to even, plus the
// output zero point, saturated).
#include "compiler/graph/family_common.h"
#include "compiler/graph/packed_int8.h"
#include "compiler/ops/quantize.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using namespace quantized;

// A scale or zero point: a scalar, or one value per index of the axis.
absl::Status CheckQuantParam(const Node& n, const TensorType& x, const TensorType& param, const char* what) {
  const bool scalar = param.shape.empty() || param.shape == std::vector<int64_t>{1};
  if (scalar) return absl::OkStatus();
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(x.shape.size()));
  if (!axis.ok()) return axis.status();
  if (param.shape != std::vector<int64_t>{x.shape[*axis]})
    return Error(StrCat(what, " ", param.ToString(), " must be a scalar or hold one value per index of axis ", *axis));
  return absl::OkStatus();
}

absl::Status InferQuantize(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "x"));
  TF_RETURN_IF_ERROR(CheckQuantParam(n, in[0], in[1], "scale"));
  te::DType dtype = te::DType::kUInt8;
  if (in.size() > 2) {
    TF_RETURN_IF_ERROR(CheckQuantParam(n, in[0], in[2], "zero point"));
    dtype = in[2].dtype;
    if (dtype != te::DType::kUInt8 && dtype != te::DType::kInt8)
      return Error(StrCat("the zero point must be uint8 or int8, got ", in[2].ToString()));
  }
  *out = {TensorType{dtype, in[0].shape}};
  return absl::OkStatus();
}

absl::Status InferDequantize(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[1], "scale"));
  TF_RETURN_IF_ERROR(CheckQuantParam(n, in[0], in[1], "scale"));
  if (in.size() > 2) TF_RETURN_IF_ERROR(CheckQuantParam(n, in[0], in[2], "zero point"));
  *out = {TensorType{in[1].dtype, in[0].shape}};
  return absl::OkStatus();
}

// Input x as int32 minus zero point input zp (when present); a zero point with several values is
// reshaped to `zp_shape` first.
absl::StatusOr<std::string> Centered(OnnxNode& n, int x, int zp, std::vector<int64_t> zp_shape, const std::string& what) {
  auto wide = EmitValue(n, "Cast", {n.input(x)}, CastTo(te::DType::kInt32), what + "_i32");
  if (!wide.ok() || !n.HasInput(zp)) return wide;
  if (n.InputType(zp).dtype != n.InputType(x).dtype)
    return n.Error(StrCat(what, "'s zero point ", n.InputType(zp).ToString(), " differs in dtype from ", n.InputType(x).ToString()));
  auto zp_wide = EmitValue(n, "Cast", {n.input(zp)}, CastTo(te::DType::kInt32), what + "_zp_i32");
  if (!zp_wide.ok()) return zp_wide;
  auto shaped = Broadcastable(n, *zp_wide, std::move(zp_shape), what + "_zp");
  if (!shaped.ok()) return shaped;
  return EmitValue(n, "Sub", {*wide, *shaped}, {}, what + "_centered");
}

// A matmul of centered int8 operands in int32: inputs a, b and their zero points.
absl::StatusOr<IntegerResult> IntegerMatMul(OnnxNode& n, int a, int a_zp, int b, int b_zp) {
  TF_RETURN_IF_ERROR(NeedEightBit(n, a, "A"));
  TF_RETURN_IF_ERROR(NeedEightBit(n, b, "B"));
  if (FitsPackedInt8MatMul(n, a, b)) return PackedIntegerMatMul(n, a, a_zp, b, b_zp);
  auto left = Centered(n, a, a_zp, RowShape(n.InputType(a)), "a");
  if (!left.ok()) return left.status();
  auto right = Centered(n, b, b_zp, {}, "b");
  if (!right.ok()) return right.status();
  auto acc = EmitValue(n, "MatMul", {*left, *right}, {}, "acc");
  if (!acc.ok()) return acc.status();
  return IntegerResult{*acc, {}, {}};
}

// A convolution of centered int8 operands in int32, with the node's window attributes and an
// optional int32 bias input.
absl::StatusOr<IntegerResult> IntegerConv(OnnxNode& n, int x, int x_zp, int w, int w_zp, int bias) {
  TF_RETURN_IF_ERROR(NeedEightBit(n, x, "x"));
  TF_RETURN_IF_ERROR(NeedEightBit(n, w, "w"));
  const TensorType& wt = n.InputType(w);
  if (n.HasInput(x_zp) && n.InputType(x_zp).NumElements() != 1) return n.Error("x's zero point must be one value");
  if (FitsPackedInt8Conv(n, x, x_zp, w, w_zp)) return PackedIntegerConv(n, x, x_zp, w, w_zp, bias);
  std::vector<int64_t> per_channel(wt.shape.size(), 1);
  if (!per_channel.empty()) per_channel[0] = wt.shape[0];
  auto input = Centered(n, x, x_zp, {}, "x");
  if (!input.ok()) return input.status();
  auto weight = Centered(n, w, w_zp, per_channel, "w");
  if (!weight.ok()) return weight.status();
  Attrs attrs = n.attrs();
  std::vector<int64_t> kernel = attrs.GetInts("kernel_shape");
  if (kernel.empty() && wt.shape.size() > 2) kernel.assign(wt.shape.begin() + 2, wt.shape.end());
  TF_RETURN_IF_ERROR(ResolveAutoPad(n, n.InputType(x), kernel, &attrs));
  std::string bias_value;
  if (bias >= 0 && n.HasInput(bias)) {
    if (n.InputType(bias).dtype != te::DType::kInt32) return n.Error(StrCat("B must be int32, got ", n.InputType(bias).ToString()));
    bias_value = n.input(bias);
  }
  // Few products per output (depthwise convs, or a stem's 3 input channels): float32 is exact,
  // since every centered operand is within +-255, so every partial sum is an integer below 2^24
  // in magnitude, in any order, with or without FMA. The float conv takes the float path's
  // blocked layouts and vector schedules (FMA), where an int32 conv multiplies with vpmulld.
  // The sums stay floats (exact integers): requantization widens them to float64 anyway, and a
  // bias (any int32) is added there, in float64, exactly.
  int64_t products = wt.shape.size() > 1 ? wt.shape[1] : 1;
  for (size_t d = 2; d < wt.shape.size(); ++d) products *= wt.shape[d];
  if (products * 255 * 255 < (int64_t{1} << 24)) {
    auto fx = EmitValue(n, "Cast", {*input}, CastTo(te::DType::kFloat32), "x_f32");
    if (!fx.ok()) return fx.status();
    auto fw = EmitValue(n, "Cast", {*weight}, CastTo(te::DType::kFloat32), "w_f32");
    if (!fw.ok()) return fw.status();
    auto sums = EmitValue(n, "Conv", {*fx, *fw}, std::move(attrs), "acc_f32");
    if (!sums.ok()) return sums.status();
    if (bias_value.empty()) return IntegerResult{*sums, {}, {}};
    auto wide = EmitValue(n, "Cast", {*sums}, CastTo(te::DType::kFloat64), "acc_f64");
    if (!wide.ok()) return wide.status();
    std::vector<int64_t> bias_shape(n.Type(*sums).shape.size(), 1);
    bias_shape[1] = wt.shape[0];
    auto shaped = Reshaped(n, bias_value, bias_shape, "bias_channels");
    if (!shaped.ok()) return shaped.status();
    auto bias_wide = EmitValue(n, "Cast", {*shaped}, CastTo(te::DType::kFloat64), "bias_f64");
    if (!bias_wide.ok()) return bias_wide.status();
    auto biased = EmitValue(n, "Add", {*wide, *bias_wide}, {}, "acc_biased");
    if (!biased.ok()) return biased.status();
    return IntegerResult{*biased, {}, {}};
  }
  std::vector<std::string> inputs = {*input, *weight};
  if (!bias_value.empty()) inputs.push_back(bias_value);
  auto acc = EmitValue(n, "Conv", inputs, std::move(attrs), "acc");
  if (!acc.ok()) return acc.status();
  return IntegerResult{*acc, {}, {}};
}

// output = saturate(round_half_even(acc * (in_scale * w_scale / y_scale)) + y_zp) in y_zp's
// dtype (uint8 without one). `channel_shape` lays out a per-channel w_scale against acc.
// Emits it as value `out`.
absl::Status Requantize(OnnxNode& n, const std::string& acc, int in_scale, int w_scale, int y_scale, int y_zp,
                        std::vector<int64_t> channel_shape, const std::string& out_value) {
  for (int i : {in_scale, w_scale, y_scale})
    if (absl::Status s = NeedFloat(n.InputType(i), "a scale"); !s.ok()) return n.Error(std::string(s.message()));
  auto product = EmitValue(n, "Mul", {n.input(in_scale), n.input(w_scale)}, {}, "scale_product");
  if (!product.ok()) return product.status();
  auto factor = EmitValue(n, "Div", {*product, n.input(y_scale)}, {}, "factor");
  if (!factor.ok()) return factor.status();
  auto shaped = Broadcastable(n, *factor, std::move(channel_shape), "factor_channels");
  if (!shaped.ok()) return shaped.status();
  auto factor64 = EmitValue(n, "Cast", {*shaped}, CastTo(te::DType::kFloat64), "factor_f64");
  if (!factor64.ok()) return factor64.status();
  auto acc64 = EmitValue(n, "Cast", {acc}, CastTo(te::DType::kFloat64), "acc_f64");
  if (!acc64.ok()) return acc64.status();
  auto scaled = EmitValue(n, "Mul", {*acc64, *factor64}, {}, "scaled");
  if (!scaled.ok()) return scaled.status();
  auto rounded = EmitValue(n, "Round", {*scaled}, {}, "rounded");
  if (!rounded.ok()) return rounded.status();
  te::DType out = te::DType::kUInt8;
  std::string shifted = *rounded;
  if (n.HasInput(y_zp)) {
    TF_RETURN_IF_ERROR(NeedEightBit(n, y_zp, "y's zero point"));
    out = n.InputType(y_zp).dtype;
    auto zp64 = EmitValue(n, "Cast", {n.input(y_zp)}, CastTo(te::DType::kFloat64), "y_zp_f64");
    if (!zp64.ok()) return zp64.status();
    auto added = EmitValue(n, "Add", {*rounded, *zp64}, {}, "shifted");
    if (!added.ok()) return added.status();
    shifted = *added;
  }
  Attrs range;
  range.Set("min", out == te::DType::kUInt8 ? 0.0 : -128.0);
  range.Set("max", out == te::DType::kUInt8 ? 255.0 : 127.0);
  auto clipped = EmitValue(n, "Clip", {shifted}, std::move(range), "saturated");
  if (!clipped.ok()) return clipped.status();
  return n.Emit("Cast", {*clipped}, CastTo(out), {out_value}, out_value == n.output(0) ? "" : out_value);
}

absl::Status ConvertMatMulInteger(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  auto acc = IntegerMatMul(n, 0, 2, 1, 3);
  if (!acc.ok()) return acc.status();
  return EmitPlainOutput(n, *acc, acc->value);
}

absl::Status ConvertConvInteger(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  auto acc = IntegerConv(n, 0, 2, 1, 3, -1);
  if (!acc.ok()) return acc.status();
  if (n.Type(acc->value).dtype != te::DType::kInt32) {  // the float path's exact sums
    auto exact = EmitValue(n, "Cast", {acc->value}, CastTo(te::DType::kInt32), "acc_i32");
    if (!exact.ok()) return exact.status();
    acc->value = *exact;
  }
  return EmitPlainOutput(n, *acc, acc->value);
}

// a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
absl::Status ConvertQLinearMatMul(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(7));
  if (n.InputType(4).NumElements() != 1 || n.InputType(1).NumElements() != 1)
    return n.Error("per-row or per-column scales are not supported");
  auto acc = IntegerMatMul(n, 0, 2, 3, 5);
  if (!acc.ok()) return acc.status();
  if (acc->plain_shape.empty()) return Requantize(n, acc->value, 1, 4, 6, 7, {}, n.output(0));
  const std::string blocked = n.UniqueName(StrCat(n.output(0), ".blocked"));
  TF_RETURN_IF_ERROR(Requantize(n, acc->value, 1, 4, 6, 7, {}, blocked));
  return EmitPlainOutput(n, *acc, blocked);
}

// x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B.
absl::Status ConvertQLinearConv(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(7));
  auto acc = IntegerConv(n, 0, 2, 3, 5, 8);
  if (!acc.ok()) return acc.status();
  const int64_t k = n.InputType(3).shape[0];
  if (acc->plain_shape.empty()) {
    std::vector<int64_t> channels(n.InputType(0).shape.size(), 1);
    if (channels.size() > 1) channels[1] = k;
    return Requantize(n, acc->value, 1, 4, 6, 7, channels, n.output(0));
  }
  // Blocked [N, K/16, OH, OW, 16]: a per-channel scale is laid out [K/16, 1, 1, 16].
  const std::string blocked = n.UniqueName(StrCat(n.output(0), ".blocked"));
  TF_RETURN_IF_ERROR(Requantize(n, acc->value, 1, 4, 6, 7, {k / 16, 1, 1, 16}, blocked));
  return EmitPlainOutput(n, *acc, blocked);
}

}  // namespace

void RegisterQuantizeFamily(OpRegistry* r) {
  r->Register({"QuantizeLinear", 2, 3, 1, {Int("axis", 1)}, InferQuantize, OpPattern::kBroadcast});
  r->Register({"DequantizeLinear", 2, 3, 1, {Int("axis", 1)}, InferDequantize, OpPattern::kBroadcast});
  r->Register({"DynamicQuantizeLinear", 1, 1, 3, {},
               [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 if (in[0].dtype != te::DType::kFloat32) return Error(StrCat("x must be float32, got ", in[0].ToString()));
                 *out = {TensorType{te::DType::kUInt8, in[0].shape}, TensorType{te::DType::kFloat32, {}},
                         TensorType{te::DType::kUInt8, {}}};
                 return absl::OkStatus();
               },
               OpPattern::kOpaque});

  Set(r, "QuantizeLinear", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::QuantizeLinear(b, in[0], in[1], in.size() > 2 ? &in[2] : nullptr, n.attrs.GetInt("axis"), n.name));
  });
  Set(r, "DequantizeLinear", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::DequantizeLinear(b, in[0], in[1], in.size() > 2 ? &in[2] : nullptr, n.attrs.GetInt("axis"), n.name));
  });
  RegisterPackedInt8Ops(r);
  r->RegisterOnnx({"MatMulInteger", 10, -1, ConvertMatMulInteger});
  r->RegisterOnnx({"ConvInteger", 10, -1, ConvertConvInteger});
  r->RegisterOnnx({"QLinearMatMul", 10, -1, ConvertQLinearMatMul});
  r->RegisterOnnx({"QLinearConv", 10, -1, ConvertQLinearConv});
  Set(r, "DynamicQuantizeLinear", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return ops::DynamicQuantizeLinear(b, in[0], n.name);
  });
}

}  // namespace tunefarm::graph
