#include "compiler/graph/packed_int8.h"

#include "compiler/graph/family_common.h"
#include "compiler/graph/shifted_operand.h"
#include "compiler/ops/int8_conv.h"
#include "compiler/ops/int8_matmul.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using namespace quantized;

constexpr int64_t kLanes = ops::kInt8DotLanes;
constexpr int64_t kDepth = ops::kInt8DotDepth;

bool IsEightBit(te::DType t) { return t == te::DType::kUInt8 || t == te::DType::kInt8; }

// value[start:end] along `axis`.
absl::StatusOr<std::string> Sliced(OnnxNode& n, const std::string& value, int64_t axis, int64_t start, int64_t end,
                                   const std::string& what) {
  Attrs slice;
  slice.Set("starts", std::vector<int64_t>{start});
  slice.Set("ends", std::vector<int64_t>{end});
  slice.Set("axes", std::vector<int64_t>{axis});
  return EmitValue(n, "Slice", {value}, std::move(slice), what);
}

// *value -= x * y.
absl::Status SubtractProduct(OnnxNode& n, const std::string& x, const std::string& y, const std::string& what,
                             std::string* value) {
  auto term = EmitValue(n, "Mul", {x, y}, {}, what);
  if (!term.ok()) return term.status();
  auto less = EmitValue(n, "Sub", {*value, *term}, {}, "minus_" + what);
  if (!less.ok()) return less.status();
  *value = *less;
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

absl::Status InferConvU8S8(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const TensorType& x = in[0];
  const TensorType& w = in[1];
  if (x.dtype != te::DType::kUInt8 || w.dtype != te::DType::kInt8)
    return Error(StrCat("expects uint8 x and int8 packed w, got ", x.ToString(), " and ", w.ToString()));
  if (x.shape.size() != 5 || x.shape[4] % kDepth != 0 || w.shape.size() != 6 ||
      w.shape[1] != x.shape[1] * (x.shape[4] / kDepth) || w.shape[4] != kLanes || w.shape[5] != kDepth)
    return Error(StrCat("x ", x.ToString(), " and w ", w.ToString(),
                        " do not fit [N, C/B, H, W, B] (B a multiple of 4) and [K/16, C/4, R, S, 16, 4]"));
  const std::vector<int64_t> strides = IntsOr(n, "strides", 2, 1), dilations = IntsOr(n, "dilations", 2, 1);
  std::vector<int64_t> shape = {x.shape[0], w.shape[0], 0, 0, kLanes};
  for (int d = 0; d < 2; ++d) {
    if (strides[d] < 1 || dilations[d] < 1) return Error("strides and dilations must be positive");
    shape[2 + d] = (x.shape[2 + d] - (w.shape[2 + d] - 1) * dilations[d] - 1) / strides[d] + 1;
    if (shape[2 + d] < 1) return Error(StrCat("the window of w ", w.ToString(), " does not fit x ", x.ToString()));
  }
  *out = {TensorType{te::DType::kInt32, shape}};
  return absl::OkStatus();
}

}  // namespace

bool FitsPackedInt8MatMul(OnnxNode& n, int a, int b) {
  const TensorType& at = n.InputType(a);
  const TensorType& bt = n.InputType(b);
  return IsEightBit(at.dtype) && IsEightBit(bt.dtype) && at.shape.size() >= 2 &&
         ops::PackedInt8WeightShape(bt.shape).ok() && at.shape.back() == bt.shape[0];
}

// A [..., M, K] uint8 times B [K, N] int8 through the packed kernel, with the zero points applied
// after it in the blocked shape: sum (a - za)(b - zb) = sum ab - zb * sum_k a - za * sum_k (b - zb).
// B's packing and its column sums fold at compile time when B is a constant.
absl::StatusOr<IntegerResult> PackedIntegerMatMul(OnnxNode& n, int a_input, int a_zp, int b_input, int b_zp) {
  const TensorType& at = n.InputType(a_input);
  const TensorType& bt = n.InputType(b_input);
  auto a = ReadAs(n, a_input, a_zp, te::DType::kUInt8, "a");
  if (!a.ok()) return a.status();
  auto b = ReadAs(n, b_input, b_zp, te::DType::kInt8, "b");
  if (!b.ok()) return b.status();
  const int64_t k = bt.shape[0], cols = bt.shape[1], blocks = cols / ops::kInt8DotLanes;
  const std::vector<int64_t> column_blocks = {blocks, ops::kInt8DotLanes};
  std::vector<int64_t> row_shape(at.shape.begin(), at.shape.end() - 1);  // [..., M]: one value per row
  IntegerResult out;
  out.plain_shape = row_shape;
  out.plain_shape.push_back(cols);
  Attrs perm;
  perm.Set("perm", std::vector<int64_t>{2, 0, 3, 1});
  auto blocked_b = Reshaped(n, b->value, {k / ops::kInt8DotDepth, ops::kInt8DotDepth, blocks, ops::kInt8DotLanes},
                            "b_blocks");
  if (!blocked_b.ok()) return blocked_b.status();
  auto packed = EmitValue(n, "Transpose", {*blocked_b}, std::move(perm), "b_packed");
  if (!packed.ok()) return packed.status();
  auto acc = EmitValue(n, "MatMulU8S8", {a->value, *packed}, {}, "products");
  if (!acc.ok()) return acc.status();
  out.value = *acc;
  // A zero point of zeros (as quantizers write symmetric weights) changes nothing.
  std::string zb;  // b's zero point as int32: a scalar or [N]; empty without one
  if (!ZeroPointIsZero(n, *b)) {
    auto wide = WideZeroPoint(n, *b, {}, "b");
    if (!wide.ok()) return wide.status();
    zb = *wide;
    auto zb_blocked = Broadcastable(n, zb, column_blocks, "b_zp_blocks");
    if (!zb_blocked.ok()) return zb_blocked.status();
    auto a_wide = EmitValue(n, "Cast", {a->value}, CastTo(te::DType::kInt32), "a_u8_i32");
    if (!a_wide.ok()) return a_wide.status();
    auto row_sums = SumOver(n, *a_wide, {static_cast<int64_t>(at.shape.size()) - 1}, true, "a_row_sums");
    if (!row_sums.ok()) return row_sums.status();
    std::vector<int64_t> per_row = row_shape;
    per_row.insert(per_row.end(), {1, 1});
    auto row_sums_blocked = Reshaped(n, *row_sums, per_row, "a_row_sums_blocked");
    if (!row_sums_blocked.ok()) return row_sums_blocked.status();
    TF_RETURN_IF_ERROR(SubtractProduct(n, *row_sums_blocked, *zb_blocked, "b_zp_term", &out.value));
  }
  if (!ZeroPointIsZero(n, *a)) {
    std::vector<int64_t> per_row = {at.shape[at.shape.size() - 2], 1, 1};  // za per row: [M, 1, 1]
    auto za = WideZeroPoint(n, *a, per_row, "a");
    if (!za.ok()) return za.status();
    auto b_wide = EmitValue(n, "Cast", {b->value}, CastTo(te::DType::kInt32), "b_s8_i32");
    if (!b_wide.ok()) return b_wide.status();
    std::string b_centered = *b_wide;
    if (!zb.empty()) {
      auto centered = EmitValue(n, "Sub", {*b_wide, zb}, {}, "b_centered");
      if (!centered.ok()) return centered.status();
      b_centered = *centered;
    }
    auto col_sums = SumOver(n, b_centered, {0}, true, "b_col_sums");
    if (!col_sums.ok()) return col_sums.status();
    auto col_sums_blocked = Reshaped(n, *col_sums, column_blocks, "b_col_sums_blocked");
    if (!col_sums_blocked.ok()) return col_sums_blocked.status();
    TF_RETURN_IF_ERROR(SubtractProduct(n, *za, *col_sums_blocked, "a_zp_term", &out.value));
  }
  return out;
}

bool FitsPackedInt8Conv(OnnxNode& n, int x, int x_zp, int w, int w_zp) {
  const TensorType& xt = n.InputType(x);
  const TensorType& wt = n.InputType(w);
  if (!IsEightBit(xt.dtype) || !IsEightBit(wt.dtype) || xt.shape.size() != 4 || wt.shape.size() != 4) return false;
  const int64_t groups = n.attrs().GetInt("group", 1);
  if (groups < 1 || xt.shape[1] != wt.shape[1] * groups || wt.shape[1] % kDepth != 0 || wt.shape[0] % groups != 0 ||
      (wt.shape[0] / groups) % kLanes != 0)
    return false;
  if (!ConstantZeroPoint(n, ShiftedOperand{"", x_zp, 0}).has_value()) return false;
  // w's zero point, once w is read as int8, must be zeros: int8 weights without one (or with
  // zeros), uint8 weights with 128.
  return ZeroPointIsZero(n, ShiftedOperand{"", w_zp, ShiftTo(wt.dtype, te::DType::kInt8)});
}

absl::StatusOr<IntegerResult> PackedIntegerConv(OnnxNode& n, int x_input, int x_zp, int w_input, int w_zp, int bias) {
  const TensorType& xt = n.InputType(x_input);
  const TensorType& wt = n.InputType(w_input);
  auto x = ReadAs(n, x_input, x_zp, te::DType::kUInt8, "x");
  if (!x.ok()) return x.status();
  auto w = ReadAs(n, w_input, w_zp, te::DType::kInt8, "w");
  if (!w.ok()) return w.status();
  const int64_t batch = xt.shape[0], c = xt.shape[1], h = xt.shape[2], wd = xt.shape[3];
  const int64_t k = wt.shape[0], r = wt.shape[2], s = wt.shape[3];
  const int64_t groups = n.attrs().GetInt("group", 1), c_group = c / groups, k_group = k / groups;
  Attrs window = n.attrs();
  std::vector<int64_t> kernel = window.GetInts("kernel_shape");
  if (kernel.empty()) kernel = {r, s};
  TF_RETURN_IF_ERROR(ResolveAutoPad(n, xt, kernel, &window));
  std::vector<int64_t> pads = window.GetInts("pads");
  if (pads.empty()) pads.assign(4, 0);
  // Padded with x's zero point: the padding adds nothing once the zero point is taken out.
  const double zx = ConstantZeroPoint(n, *x).value_or(0.0);  // FitsPackedInt8Conv checked it is constant
  std::string data = x->value;
  if (pads[0] > 0 || pads[1] > 0 || pads[2] > 0 || pads[3] > 0) {
    Attrs pad;
    pad.Set("pads", std::vector<int64_t>{0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]});
    pad.Set("value", zx);
    auto padded = EmitValue(n, "Pad", {data}, std::move(pad), "x_padded");
    if (!padded.ok()) return padded.status();
    data = *padded;
  }
  const int64_t hp = h + pads[0] + pads[2], wp = wd + pads[1] + pads[3];
  Attrs x_perm, w_perm, conv;
  x_perm.Set("perm", std::vector<int64_t>{0, 1, 3, 4, 2});
  w_perm.Set("perm", std::vector<int64_t>{0, 2, 4, 5, 1, 3});
  // x in blocks of 16 channels when they divide a group's C: the layout of this conv's own
  // output, so that between two such convs the unpack and repack compose into a padded copy.
  const int64_t block = c_group % kLanes == 0 ? kLanes : kDepth;
  auto x_blocks = Reshaped(n, data, {batch, c / block, block, hp, wp}, "x_blocks");
  if (!x_blocks.ok()) return x_blocks.status();
  auto x_packed = EmitValue(n, "Transpose", {*x_blocks}, std::move(x_perm), "x_packed");
  if (!x_packed.ok()) return x_packed.status();
  auto w_blocks = Reshaped(n, w->value, {k / kLanes, kLanes, c_group / kDepth, kDepth, r, s}, "w_blocks");
  if (!w_blocks.ok()) return w_blocks.status();
  auto w_packed = EmitValue(n, "Transpose", {*w_blocks}, std::move(w_perm), "w_packed");
  if (!w_packed.ok()) return w_packed.status();
  for (const char* attr : {"strides", "dilations"})
    if (window.Has(attr)) conv.Set(attr, window.GetInts(attr));
  // A grouped conv is one packed conv per group (its blocks of x and of w), joined along K's
  // blocks: each group's C and K fit the packed kernel (FitsPackedInt8Conv).
  std::vector<std::string> group_sums;
  for (int64_t g = 0; g < groups; ++g) {
    std::string x_group = *x_packed, w_group = *w_packed;
    if (groups > 1) {
      auto xs = Sliced(n, *x_packed, 1, g * c_group / block, (g + 1) * c_group / block, StrCat("x_group", g));
      if (!xs.ok()) return xs.status();
      auto ws = Sliced(n, *w_packed, 0, g * k_group / kLanes, (g + 1) * k_group / kLanes, StrCat("w_group", g));
      if (!ws.ok()) return ws.status();
      x_group = *xs, w_group = *ws;
    }
    auto products = EmitValue(n, "ConvU8S8", {x_group, w_group}, conv, groups > 1 ? StrCat("products", g) : "products");
    if (!products.ok()) return products.status();
    group_sums.push_back(*products);
  }
  absl::StatusOr<std::string> acc = group_sums[0];
  if (groups > 1) {
    Attrs join;
    join.Set("axis", int64_t{1});
    acc = EmitValue(n, "Concat", group_sums, std::move(join), "products");
    if (!acc.ok()) return acc.status();
  }
  const std::vector<int64_t>& blocked = n.Type(*acc).shape;
  IntegerResult out{*acc, {batch, k, blocked[2], blocked[3]}, {0, 1, 4, 2, 3}};
  const std::vector<int64_t> per_channel = {k / kLanes, 1, 1, kLanes};
  if (zx != 0) {
    auto w_wide = EmitValue(n, "Cast", {w->value}, CastTo(te::DType::kInt32), "w_s8_i32");
    if (!w_wide.ok()) return w_wide.status();
    auto w_sums = SumOver(n, *w_wide, {1, 2, 3}, false, "w_sums");
    if (!w_sums.ok()) return w_sums.status();
    auto w_sums_blocked = Reshaped(n, *w_sums, per_channel, "w_sums_blocked");
    if (!w_sums_blocked.ok()) return w_sums_blocked.status();
    auto zx_wide = WideZeroPoint(n, *x, {}, "x");
    if (!zx_wide.ok()) return zx_wide.status();
    TF_RETURN_IF_ERROR(SubtractProduct(n, *w_sums_blocked, *zx_wide, "x_zp_term", &out.value));
  }
  if (bias >= 0 && n.HasInput(bias)) {
    const TensorType& bt = n.InputType(bias);
    if (bt.dtype != te::DType::kInt32 || bt.shape != std::vector<int64_t>{k})
      return n.Error(StrCat("B must be int32 [", k, "], got ", bt.ToString()));
    auto bias_blocked = Reshaped(n, n.input(bias), per_channel, "bias_blocked");
    if (!bias_blocked.ok()) return bias_blocked.status();
    auto biased = EmitValue(n, "Add", {out.value, *bias_blocked}, {}, "biased");
    if (!biased.ok()) return biased.status();
    out.value = *biased;
  }
  return out;
}

void RegisterPackedInt8Ops(OpRegistry* r) {
  r->Register({"MatMulU8S8", 2, 2, 1, {}, InferMatMulU8S8, OpPattern::kOutElementwiseFusable});
  Set(r, "MatMulU8S8", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::MatmulU8S8(b, in[0], in[1], n.name));
  });
  r->Register({"ConvU8S8", 2, 2, 1, {IntList("strides"), IntList("dilations")}, InferConvU8S8,
               OpPattern::kOutElementwiseFusable});
  Set(r, "ConvU8S8", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    const std::vector<int64_t> strides = IntsOr(n, "strides", 2, 1), dilations = IntsOr(n, "dilations", 2, 1);
    return One(ops::Conv2dU8S8(b, in[0], in[1], {strides[0], strides[1], dilations[0], dilations[1]}, n.name));
  });
}

}  // namespace tunefarm::graph
