// The quantization family: QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (8-bit,
// per tensor or per channel along `axis`), the ops that bring int8 models in and out of float;
// and the integer ops of quantized models, converted to graph ops: MatMulInteger and
// ConvInteger widen to int32, subtract the zero points and run MatMul / Conv in int32 (exact);
// QLinearMatMul and QLinearConv do the same, then requantize as ONNX's reference does (the
// int32 result times in_scale * w_scale / y_scale in float64, rounded half to even, plus the
// output zero point, saturated).
#include "compiler/graph/family_common.h"
#include "compiler/ops/int8_matmul.h"
#include "compiler/ops/quantize.h"

namespace tunefarm::graph {
namespace {
using namespace family;

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

absl::Status InferMatMulU8S8(const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const TensorType& a = in[0];
  const TensorType& packed = in[1];
  if (a.dtype != te::DType::kUInt8 || packed.dtype != te::DType::kInt8)
    return Error(StrCat("expects uint8 A and int8 packed B, got ", a.ToString(), " and ", packed.ToString()));
  const auto& p = packed.shape;
  if (a.shape.size() < 2 || p.size() != 4 || p[2] != ops::kInt8DotLanes || p[3] != ops::kInt8DotDepth ||
      a.shape.back() != p[1] * ops::kInt8DotDepth)
    return Error(StrCat("A ", a.ToString(), " and packed B ", packed.ToString(), " do not fit [..., M, K] x [N/",
                        ops::kInt8DotLanes, ", K/", ops::kInt8DotDepth, ", ", ops::kInt8DotLanes, ", ",
                        ops::kInt8DotDepth, "]"));
  std::vector<int64_t> shape(a.shape.begin(), a.shape.end() - 1);
  shape.insert(shape.end(), {p[0], ops::kInt8DotLanes});
  *out = {TensorType{te::DType::kInt32, shape}};
  return absl::OkStatus();
}

Attrs CastTo(te::DType t) {
  Attrs a;
  a.Set("to", std::string(te::DTypeName(t)));
  return a;
}

// Emits `op` into a fresh value named after the node's output and `what`; returns the value.
absl::StatusOr<std::string> EmitValue(OnnxNode& n, const std::string& op, const std::vector<std::string>& inputs,
                                      Attrs attrs, const std::string& what) {
  std::string out = n.UniqueName(StrCat(n.output(0), ".", what));
  TF_RETURN_IF_ERROR(n.Emit(op, inputs, std::move(attrs), {out}, out));
  return out;
}

// `value` reshaped to `shape` (a view: no copy).
absl::StatusOr<std::string> Reshaped(OnnxNode& n, const std::string& value, std::vector<int64_t> shape,
                                     const std::string& what) {
  Attrs a;
  a.Set("shape", std::move(shape));
  return EmitValue(n, "Reshape", {value}, std::move(a), what);
}

// `value` reshaped to `shape` when it holds more than one element (a per-row or per-channel
// zero point or scale, laid out to broadcast against the operand).
absl::StatusOr<std::string> Broadcastable(OnnxNode& n, const std::string& value, std::vector<int64_t> shape,
                                          const std::string& what) {
  if (n.Type(value).NumElements() <= 1 || shape.empty()) return value;
  return Reshaped(n, value, std::move(shape), what);
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

absl::Status NeedEightBit(OnnxNode& n, int i, const char* what) {
  const te::DType t = n.InputType(i).dtype;
  if (t != te::DType::kUInt8 && t != te::DType::kInt8)
    return n.Error(StrCat(what, " must be uint8 or int8, got ", n.InputType(i).ToString()));
  return absl::OkStatus();
}

// The per-row zero point of A [.., M, K] is [M]: reshaped to [M, 1].
std::vector<int64_t> RowShape(const TensorType& a) {
  return a.shape.size() >= 2 ? std::vector<int64_t>{a.shape[a.shape.size() - 2], 1} : std::vector<int64_t>{};
}

// True when A (uint8, [..., M, K]) times B (int8, [K, N]) fits the packed kernel of
// ops/int8_matmul.h: K a multiple of 4 and N of 16.
bool FitsPackedInt8(OnnxNode& n, int a, int b) {
  const TensorType& at = n.InputType(a);
  const TensorType& bt = n.InputType(b);
  return at.dtype == te::DType::kUInt8 && bt.dtype == te::DType::kInt8 && at.shape.size() >= 2 &&
         ops::PackedInt8WeightShape(bt.shape).ok() && at.shape.back() == bt.shape[0];
}

// The zero point input zp as int32, after checking it has x's dtype, laid out as `shape` when it
// holds several values.
absl::StatusOr<std::string> WideZeroPoint(OnnxNode& n, int x, int zp, std::vector<int64_t> shape,
                                          const std::string& what) {
  if (n.InputType(zp).dtype != n.InputType(x).dtype)
    return n.Error(StrCat(what, "'s zero point ", n.InputType(zp).ToString(), " differs in dtype from ", n.InputType(x).ToString()));
  auto wide = EmitValue(n, "Cast", {n.input(zp)}, CastTo(te::DType::kInt32), what + "_zp_i32");
  if (!wide.ok()) return wide;
  return Broadcastable(n, *wide, std::move(shape), what + "_zp");
}

// Sum over `axis` of x (int32), keeping the axis.
absl::StatusOr<std::string> SumOver(OnnxNode& n, const std::string& x, int64_t axis, const std::string& what) {
  Attrs a;
  a.Set("axes", std::vector<int64_t>{axis});
  a.Set("keepdims", int64_t{1});
  return EmitValue(n, "ReduceSum", {x}, std::move(a), what);
}

// An integer matmul's int32 result. The packed kernel gives it blocked, [..., M, N/16, 16];
// `plain_shape` ([..., M, N]) is then what the ONNX output must be reshaped to (a view), after
// any elementwise epilogue, which stays fused with the kernel in the blocked shape.
struct IntegerProduct {
  std::string value;
  std::vector<int64_t> plain_shape;  // empty: `value` is already [..., M, N]
};

// A [..., M, K] uint8 times B [K, N] int8 through the packed kernel, with the zero points applied
// after it in the blocked shape: sum (a - za)(b - zb) = sum ab - zb * sum_k a - za * sum_k (b - zb).
// B's packing and its column sums fold at compile time when B is a constant.
absl::StatusOr<IntegerProduct> PackedIntegerMatMul(OnnxNode& n, int a, int a_zp, int b, int b_zp) {
  const TensorType& at = n.InputType(a);
  const TensorType& bt = n.InputType(b);
  const int64_t k = bt.shape[0], cols = bt.shape[1], blocks = cols / ops::kInt8DotLanes;
  const std::vector<int64_t> column_blocks = {blocks, ops::kInt8DotLanes};
  std::vector<int64_t> row_shape(at.shape.begin(), at.shape.end() - 1);  // [..., M]: one value per row
  IntegerProduct out;
  out.plain_shape = row_shape;
  out.plain_shape.push_back(cols);
  Attrs perm;
  perm.Set("perm", std::vector<int64_t>{2, 0, 3, 1});
  auto blocked_b = Reshaped(n, n.input(b), {k / ops::kInt8DotDepth, ops::kInt8DotDepth, blocks, ops::kInt8DotLanes},
                            "b_blocks");
  if (!blocked_b.ok()) return blocked_b.status();
  auto packed = EmitValue(n, "Transpose", {*blocked_b}, std::move(perm), "b_packed");
  if (!packed.ok()) return packed.status();
  auto acc = EmitValue(n, "MatMulU8S8", {n.input(a), *packed}, {}, "products");
  if (!acc.ok()) return acc.status();
  out.value = *acc;
  // Subtracts term = x * y from the result.
  auto subtract = [&](const std::string& x, const std::string& y, const std::string& what) -> absl::Status {
    auto term = EmitValue(n, "Mul", {x, y}, {}, what);
    if (!term.ok()) return term.status();
    auto less = EmitValue(n, "Sub", {out.value, *term}, {}, "minus_" + what);
    if (!less.ok()) return less.status();
    out.value = *less;
    return absl::OkStatus();
  };
  auto b_wide = EmitValue(n, "Cast", {n.input(b)}, CastTo(te::DType::kInt32), "b_i32");
  if (!b_wide.ok()) return b_wide.status();
  std::string b_centered = *b_wide;
  if (n.HasInput(b_zp)) {
    auto zb = WideZeroPoint(n, b, b_zp, {}, "b");  // a scalar, or [N]
    if (!zb.ok()) return zb.status();
    auto centered = EmitValue(n, "Sub", {*b_wide, *zb}, {}, "b_centered");
    if (!centered.ok()) return centered.status();
    b_centered = *centered;
    auto zb_blocked = Broadcastable(n, *zb, column_blocks, "b_zp_blocks");
    if (!zb_blocked.ok()) return zb_blocked.status();
    auto a_wide = EmitValue(n, "Cast", {n.input(a)}, CastTo(te::DType::kInt32), "a_i32");
    if (!a_wide.ok()) return a_wide.status();
    auto row_sums = SumOver(n, *a_wide, static_cast<int64_t>(at.shape.size()) - 1, "a_row_sums");
    if (!row_sums.ok()) return row_sums.status();
    std::vector<int64_t> per_row = row_shape;
    per_row.insert(per_row.end(), {1, 1});
    auto row_sums_blocked = Reshaped(n, *row_sums, per_row, "a_row_sums_blocked");
    if (!row_sums_blocked.ok()) return row_sums_blocked.status();
    TF_RETURN_IF_ERROR(subtract(*row_sums_blocked, *zb_blocked, "b_zp_term"));
  }
  if (n.HasInput(a_zp)) {
    std::vector<int64_t> per_row = {at.shape[at.shape.size() - 2], 1, 1};  // za per row: [M, 1, 1]
    auto za = WideZeroPoint(n, a, a_zp, per_row, "a");
    if (!za.ok()) return za.status();
    auto col_sums = SumOver(n, b_centered, 0, "b_col_sums");
    if (!col_sums.ok()) return col_sums.status();
    auto col_sums_blocked = Reshaped(n, *col_sums, column_blocks, "b_col_sums_blocked");
    if (!col_sums_blocked.ok()) return col_sums_blocked.status();
    TF_RETURN_IF_ERROR(subtract(*za, *col_sums_blocked, "a_zp_term"));
  }
  return out;
}

// A matmul of centered int8 operands in int32: inputs a, b and their zero points.
absl::StatusOr<IntegerProduct> IntegerMatMul(OnnxNode& n, int a, int a_zp, int b, int b_zp) {
  TF_RETURN_IF_ERROR(NeedEightBit(n, a, "A"));
  TF_RETURN_IF_ERROR(NeedEightBit(n, b, "B"));
  if (FitsPackedInt8(n, a, b)) return PackedIntegerMatMul(n, a, a_zp, b, b_zp);
  auto left = Centered(n, a, a_zp, RowShape(n.InputType(a)), "a");
  if (!left.ok()) return left.status();
  auto right = Centered(n, b, b_zp, {}, "b");
  if (!right.ok()) return right.status();
  auto acc = EmitValue(n, "MatMul", {*left, *right}, {}, "acc");
  if (!acc.ok()) return acc.status();
  return IntegerProduct{*acc, {}};
}

// Defines the node's output as `value`, reshaped to the product's plain shape when it is blocked.
absl::Status EmitOutput(OnnxNode& n, const IntegerProduct& product, const std::string& value) {
  if (product.plain_shape.empty()) return n.Emit("Identity", {value}, {}, {n.output(0)});
  Attrs a;
  a.Set("shape", product.plain_shape);
  return n.Emit("Reshape", {value}, std::move(a), {n.output(0)});
}

// A convolution of centered int8 operands in int32, with the node's window attributes and an
// optional int32 bias input.
absl::StatusOr<std::string> IntegerConv(OnnxNode& n, int x, int x_zp, int w, int w_zp, int bias) {
  TF_RETURN_IF_ERROR(NeedEightBit(n, x, "x"));
  TF_RETURN_IF_ERROR(NeedEightBit(n, w, "w"));
  const TensorType& wt = n.InputType(w);
  if (n.HasInput(x_zp) && n.InputType(x_zp).NumElements() != 1) return n.Error("x's zero point must be one value");
  std::vector<int64_t> per_channel(wt.shape.size(), 1);
  if (!per_channel.empty()) per_channel[0] = wt.shape[0];
  auto input = Centered(n, x, x_zp, {}, "x");
  if (!input.ok()) return input;
  auto weight = Centered(n, w, w_zp, per_channel, "w");
  if (!weight.ok()) return weight;
  Attrs attrs = n.attrs();
  std::vector<int64_t> kernel = attrs.GetInts("kernel_shape");
  if (kernel.empty() && wt.shape.size() > 2) kernel.assign(wt.shape.begin() + 2, wt.shape.end());
  TF_RETURN_IF_ERROR(ResolveAutoPad(n, n.InputType(x), kernel, &attrs));
  std::vector<std::string> inputs = {*input, *weight};
  if (bias >= 0 && n.HasInput(bias)) {
    if (n.InputType(bias).dtype != te::DType::kInt32) return n.Error(StrCat("B must be int32, got ", n.InputType(bias).ToString()));
    inputs.push_back(n.input(bias));
  }
  return EmitValue(n, "Conv", inputs, std::move(attrs), "acc");
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
  return EmitOutput(n, *acc, acc->value);
}

absl::Status ConvertConvInteger(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  auto acc = IntegerConv(n, 0, 2, 1, 3, -1);
  if (!acc.ok()) return acc.status();
  return n.Emit("Identity", {*acc}, {}, {n.output(0)});
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
  return EmitOutput(n, *acc, blocked);
}

// x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B.
absl::Status ConvertQLinearConv(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(7));
  auto acc = IntegerConv(n, 0, 2, 3, 5, 8);
  if (!acc.ok()) return acc.status();
  std::vector<int64_t> channels(n.InputType(0).shape.size(), 1);
  if (channels.size() > 1) channels[1] = n.InputType(3).shape[0];
  return Requantize(n, *acc, 1, 4, 6, 7, channels, n.output(0));
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
  // Internal: the packed uint8 x int8 product (ops/int8_matmul.h) that MatMulInteger and
  // QLinearMatMul become when their shapes fit it.
  r->Register({"MatMulU8S8", 2, 2, 1, {}, InferMatMulU8S8, OpPattern::kOutElementwiseFusable});
  Set(r, "MatMulU8S8", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::MatmulU8S8(b, in[0], in[1], n.name));
  });
  r->RegisterOnnx({"MatMulInteger", 10, -1, ConvertMatMulInteger});
  r->RegisterOnnx({"ConvInteger", 10, -1, ConvertConvInteger});
  r->RegisterOnnx({"QLinearMatMul", 10, -1, ConvertQLinearMatMul});
  r->RegisterOnnx({"QLinearConv", 10, -1, ConvertQLinearConv});
  Set(r, "DynamicQuantizeLinear", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return ops::DynamicQuantizeLinear(b, in[0], n.name);
  });
}

}  // namespace tunefarm::graph
