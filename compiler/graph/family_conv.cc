// The convolution and pooling family: Conv, ConvTranspose, MaxPool (and MaxPoolWithIndices, the
// form whose Indices output is read), AveragePool, GlobalAveragePool, GlobalMaxPool, MaxUnpool
// (2-D). Window attributes arrive explicit: the converter resolves ONNX's auto_pad (ConvTranspose
// resolves its own through conv_transpose_attrs.h).
#include <algorithm>

#include "compiler/graph/conv_transpose_attrs.h"
#include "compiler/graph/family_common.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv_transpose.h"
#include "compiler/ops/pooling.h"
#include "compiler/ops/transform.h"

namespace tunefarm::graph {
namespace {
using namespace family;

// Spatial window attributes shared by Conv and the pools, checked against `spatial` dims.
struct Window {
  std::vector<int64_t> kernel, strides, pads, dilations;
};

absl::StatusOr<Window> ReadWindow(const Node& n, std::vector<int64_t> kernel, size_t spatial) {
  Window w;
  w.kernel = std::move(kernel);
  w.strides = n.attrs.GetInts("strides");
  w.pads = n.attrs.GetInts("pads");
  w.dilations = n.attrs.GetInts("dilations");
  if (w.strides.empty()) w.strides.assign(spatial, 1);
  if (w.pads.empty()) w.pads.assign(2 * spatial, 0);
  if (w.dilations.empty()) w.dilations.assign(spatial, 1);
  if (w.kernel.size() != spatial || w.strides.size() != spatial || w.dilations.size() != spatial ||
      w.pads.size() != 2 * spatial)
    return Error(StrCat("kernel_shape/strides/dilations/pads do not match ", spatial, " spatial dims"));
  for (size_t i = 0; i < spatial; ++i)
    if (w.kernel[i] <= 0 || w.strides[i] <= 0 || w.dilations[i] <= 0 || w.pads[i] < 0 || w.pads[i + spatial] < 0)
      return Error("kernel, strides and dilations must be positive and pads non-negative");
  return w;
}

absl::StatusOr<std::vector<int64_t>> WindowOutput(const std::vector<int64_t>& x, const Window& w, bool ceil_mode) {
  size_t spatial = w.kernel.size();
  std::vector<int64_t> out;
  for (size_t i = 0; i < spatial; ++i) {
    // Attribute values are unbounded int64s from the file; overflow is an error, not UB (fuzz).
    int64_t padded, extent;
    if (__builtin_add_overflow(x[2 + i], w.pads[i], &padded) ||
        __builtin_add_overflow(padded, w.pads[i + spatial], &padded) ||
        __builtin_mul_overflow(w.kernel[i] - 1, w.dilations[i], &extent) || __builtin_add_overflow(extent, 1, &extent))
      return Error("kernel_shape/pads/dilations overflow");
    if (padded < extent) return Error(StrCat("window ", extent, " larger than padded input ", padded));
    int64_t num = padded - extent;
    int64_t o = (ceil_mode ? (num + w.strides[i] - 1) / w.strides[i] : num / w.strides[i]) + 1;
    // With ceil_mode the last window must start inside the input or its left padding.
    if (ceil_mode && (o - 1) * w.strides[i] >= x[2 + i] + w.pads[i]) --o;
    out.push_back(o);
  }
  return out;
}

absl::Status InferConv(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const auto& x = in[0].shape;
  const auto& wt = in[1].shape;
  // int32: the integer convolutions (ConvInteger, QLinearConv) accumulate exactly in int32.
  if (in[0].dtype != te::DType::kInt32) TF_RETURN_IF_ERROR(NeedFloat(in[0], "X"));
  TF_RETURN_IF_ERROR(SameDType(in, 0, 1));
  if (x.size() < 3) return Error(StrCat("X must have rank >= 3, got ", in[0].ToString()));
  TF_RETURN_IF_ERROR(NeedRank(in[1], x.size(), "W"));
  int64_t group = n.attrs.GetInt("group");
  if (group <= 0 || x[1] % group != 0 || wt[0] % group != 0 || wt[1] * group != x[1])
    return Error(StrCat("channels do not match: X ", in[0].ToString(), ", W ", in[1].ToString(), ", group ", group));
  std::vector<int64_t> kernel = n.attrs.GetInts("kernel_shape");
  std::vector<int64_t> w_kernel(wt.begin() + 2, wt.end());
  if (kernel.empty()) kernel = w_kernel;
  if (kernel != w_kernel) return Error("kernel_shape differs from W's spatial dims");
  auto w = ReadWindow(n, kernel, x.size() - 2);
  if (!w.ok()) return w.status();
  if (in.size() == 3 && in[2].shape != std::vector<int64_t>{wt[0]})
    return Error(StrCat("bias must be [", wt[0], "], got ", in[2].ToString()));
  auto spatial = WindowOutput(x, *w, false);
  if (!spatial.ok()) return spatial.status();
  std::vector<int64_t> shape = {x[0], wt[0]};
  shape.insert(shape.end(), spatial->begin(), spatial->end());
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferPool(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const auto& x = in[0].shape;
  if (x.size() < 3) return Error(StrCat("X must have rank >= 3, got ", in[0].ToString()));
  auto w = ReadWindow(n, n.attrs.GetInts("kernel_shape"), x.size() - 2);
  if (!w.ok()) return w.status();
  auto spatial = WindowOutput(x, *w, n.attrs.GetInt("ceil_mode") != 0);
  if (!spatial.ok()) return spatial.status();
  std::vector<int64_t> shape = {x[0], x[1]};
  shape.insert(shape.end(), spatial->begin(), spatial->end());
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

// Y and Indices (int64, Y's shape).
absl::Status InferMaxPoolWithIndices(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  int64_t order = n.attrs.GetInt("storage_order");
  if (order != 0 && order != 1) return Error(StrCat("storage_order must be 0 or 1, got ", order));
  TF_RETURN_IF_ERROR(InferPool(n, in, out));
  out->push_back(TensorType{te::DType::kInt64, (*out)[0].shape});
  return absl::OkStatus();
}

absl::Status InferGlobalPool(const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  if (in[0].shape.size() < 3) return Error(StrCat("X must have rank >= 3, got ", in[0].ToString()));
  TensorType t = in[0];
  std::fill(t.shape.begin() + 2, t.shape.end(), 1);
  *out = {t};
  return absl::OkStatus();
}

absl::Status InferConvTranspose(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "X"));
  TF_RETURN_IF_ERROR(SameDType(in, 0, 1));
  if (in[0].shape.size() < 3) return Error(StrCat("X must have rank >= 3, got ", in[0].ToString()));
  TF_RETURN_IF_ERROR(NeedRank(in[1], in[0].shape.size(), "W"));
  auto w = ResolveConvTranspose(n, in[0].shape, in[1].shape);
  if (!w.ok()) return w.status();
  if (in.size() == 3 && in[2].shape != std::vector<int64_t>{w->output_shape[1]})
    return Error(StrCat("bias must be [", w->output_shape[1], "], got ", in[2].ToString()));
  *out = {TensorType{in[0].dtype, w->output_shape}};
  return absl::OkStatus();
}

const std::vector<AttrSpec> kWindowAttrs = {IntList("kernel_shape"), IntList("strides"), IntList("pads"),
                                            IntList("dilations")};

Outputs ConvCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  size_t spatial = in[0].shape.size() - 2;
  std::vector<int64_t> strides = IntsOr(n, "strides", spatial, 1), dil = IntsOr(n, "dilations", spatial, 1);
  std::vector<int64_t> pads = IntsOr(n, "pads", 2 * spatial, 0);
  std::string conv_name = in.size() == 3 ? StrCat(n.name, ".conv") : n.name;
  ops::Conv2dParams p;
  p.groups = n.attrs.GetInt("group");
  if (spatial == 2) {
    p.stride = {strides[0], strides[1]};
    p.padding = {pads[0], pads[1], pads[2], pads[3]};
    p.dilation = {dil[0], dil[1]};
    return WithBias(b, n, in, ops::Conv2d(b, in[0], in[1], p, conv_name));
  }
  if (spatial != 1) return Unimplemented(StrCat(spatial, "-D convolution (only 1-D and 2-D)"));
  // 1-D: a 2-D convolution over H = 1.
  p.stride = {1, strides[0]};
  p.padding = {0, pads[0], 0, pads[1]};
  p.dilation = {1, dil[0]};
  auto unsqueeze = [&](const TeTensor& t, const char* what) {
    return ops::Reshape(b, t, {{t.shape[0], t.shape[1], 1, t.shape[2]}}, StrCat(n.name, ".", what));
  };
  auto x = unsqueeze(in[0], "x2d");
  if (!x.ok()) return x.status();
  auto w = unsqueeze(in[1], "w2d");
  if (!w.ok()) return w.status();
  auto y = ops::Conv2d(b, *x, *w, p, StrCat(n.name, ".conv"));
  if (!y.ok()) return y.status();
  auto y1 = ops::Reshape(b, *y, {{y->shape[0], y->shape[1], y->shape[3]}}, in.size() == 3 ? StrCat(n.name, ".y") : n.name);
  return WithBias(b, n, in, y1);
}

Outputs ConvTransposeCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  auto w = ResolveConvTranspose(n, in[0].shape, in[1].shape);
  if (!w.ok()) return w.status();
  ops::ConvTransposeParams p{w->strides, w->pads, w->output_padding, w->dilations, n.attrs.GetInt("group")};
  return WithBias(b, n, in,
                  ops::ConvTranspose(b, in[0], in[1], p, in.size() == 3 ? StrCat(n.name, ".conv") : n.name));
}

ops::PoolParams PoolParamsOf(const Node& n, ops::PoolKind kind) {
  ops::PoolParams p;
  p.kind = kind;
  p.kernel = n.attrs.GetInts("kernel_shape");
  p.stride = n.attrs.GetInts("strides");
  p.padding = n.attrs.GetInts("pads");
  p.dilation = n.attrs.GetInts("dilations");
  p.ceil_mode = n.attrs.GetInt("ceil_mode") != 0;
  p.count_include_pad = n.attrs.GetInt("count_include_pad") != 0;
  return p;
}

ComputeFn PoolFn(ops::PoolKind kind) {
  return [kind](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    return One(ops::Pool(b, in[0], PoolParamsOf(n, kind), n.name));
  };
}

// Y and the flat index each element of Y was taken from (ONNX MaxPool's two outputs).
Outputs MaxPoolWithIndicesCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  ops::PoolParams p = PoolParamsOf(n, ops::PoolKind::kMax);
  auto y = ops::Pool(b, in[0], p, n.name);
  if (!y.ok()) return y.status();
  auto order = n.attrs.GetInt("storage_order") == 0 ? ops::PoolIndexOrder::kRowMajor : ops::PoolIndexOrder::kColumnMajor;
  auto indices = ops::MaxPoolIndices(b, in[0], *y, p, order, StrCat(n.name, ".Indices"));
  if (!indices.ok()) return indices.status();
  return std::vector<TeTensor>{*y, *indices};
}

}  // namespace

absl::Status family::ResolveAutoPad(const OnnxNode& n, const TensorType& x, const std::vector<int64_t>& kernel, Attrs* attrs) {
  std::string mode = attrs->GetString("auto_pad", "NOTSET");
  attrs->Erase("auto_pad");
  if (mode == "NOTSET" || mode.empty()) return absl::OkStatus();
  size_t spatial = x.shape.size() >= 2 ? x.shape.size() - 2 : 0;
  if (kernel.size() != spatial) return n.Error("auto_pad needs kernel_shape for every spatial dim");
  std::vector<int64_t> strides = attrs->GetInts("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> dil = attrs->GetInts("dilations", std::vector<int64_t>(spatial, 1));
  if (strides.size() != spatial || dil.size() != spatial) return n.Error("strides/dilations rank mismatch");
  std::vector<int64_t> pads(2 * spatial, 0);
  if (mode != "VALID") {
    if (mode != "SAME_UPPER" && mode != "SAME_LOWER") return n.Error(StrCat("unknown auto_pad '", mode, "'"));
    for (size_t i = 0; i < spatial; ++i) {
      if (strides[i] <= 0 || kernel[i] <= 0 || dil[i] <= 0)
        return n.Error("kernel_shape, strides and dilations must be positive");
      // 128-bit: the attributes are any int64 from the file, and overflow was UB (fuzz).
      __int128 in = x.shape[2 + i], out = (in + strides[i] - 1) / strides[i];
      __int128 need = (out - 1) * strides[i] + static_cast<__int128>(kernel[i] - 1) * dil[i] + 1 - in;
      if (need > (int64_t{1} << 40)) return n.Error("auto_pad: kernel_shape/strides/dilations are too large");
      int64_t total = std::max<int64_t>(0, static_cast<int64_t>(need));
      int64_t small = total / 2, big = total - small;
      pads[i] = mode == "SAME_UPPER" ? small : big;
      pads[i + spatial] = mode == "SAME_UPPER" ? big : small;
    }
  }
  attrs->Set("pads", pads);
  return absl::OkStatus();
}

namespace {

// Conv, MaxPool and AveragePool: auto_pad becomes pads; a MaxPool whose Indices output is read
// is the two-output MaxPoolWithIndices.
absl::Status ConvertWindowed(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  const bool with_indices = n.op() == "MaxPool" && !n.FirstOutputOnly().ok();
  if (!with_indices) TF_RETURN_IF_ERROR(n.FirstOutputOnly());
  Attrs attrs = n.attrs();
  std::vector<int64_t> kernel = attrs.GetInts("kernel_shape");
  if (kernel.empty() && n.op() == "Conv" && n.HasInput(1) && n.InputType(1).shape.size() > 2)
    kernel.assign(n.InputType(1).shape.begin() + 2, n.InputType(1).shape.end());
  TF_RETURN_IF_ERROR(ResolveAutoPad(n, n.InputType(0), kernel, &attrs));
  return n.EmitAsIs(with_indices ? "MaxPoolWithIndices" : n.op(), std::move(attrs));
}

// MaxUnpool: the output's spatial size from output_shape (an optional constant input) or
// (in - 1) * stride + kernel - pads.
absl::Status ConvertMaxUnpool(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  const TensorType& x = n.InputType(0);
  if (x.shape.size() != 4) return n.Error(StrCat("only 2-D unpooling ([N, C, H, W]) is supported, got ", x.ToString()));
  const std::vector<int64_t> kernel = n.attrs().GetInts("kernel_shape");
  if (kernel.size() != 2) return n.Error("kernel_shape must have 2 values");
  std::vector<int64_t> strides = n.attrs().GetInts("strides", {1, 1}), pads = n.attrs().GetInts("pads", {0, 0, 0, 0});
  if (strides.size() != 2 || pads.size() != 4) return n.Error("strides need 2 values and pads 4");
  // Bounded before the output extent is computed from them.
  for (int64_t v : {kernel[0], kernel[1], strides[0], strides[1]})
    if (v < 1 || v > (int64_t{1} << 20)) return n.Error(StrCat("kernel_shape and strides must be in [1, 2^20], got ", v));
  for (int64_t v : pads)
    if (v < 0 || v > (int64_t{1} << 20)) return n.Error(StrCat("pads must be in [0, 2^20], got ", v));
  const std::vector<int64_t> unpooled = {(x.shape[2] - 1) * strides[0] + kernel[0] - pads[0] - pads[2],
                                         (x.shape[3] - 1) * strides[1] + kernel[1] - pads[1] - pads[3]};
  std::vector<int64_t> out = unpooled;
  if (n.HasInput(2)) {
    auto given = n.ConstInts(2, "output_shape");
    if (!given.ok()) return given.status();
    if (given->size() != 4 || (*given)[0] != x.shape[0] || (*given)[1] != x.shape[1])
      return n.Error(StrCat("output_shape [", StrJoin(*given, ","), "] does not keep N and C of ", x.ToString()));
    out = {(*given)[2], (*given)[3]};
    if (out[0] < unpooled[0] || out[1] < unpooled[1])
      return n.Error(StrCat("output_shape [", StrJoin(*given, ","), "] is smaller than the unpooled [", unpooled[0], ",", unpooled[1], "]"));
  }
  Attrs attrs;
  attrs.Set("kernel_shape", kernel);
  attrs.Set("strides", strides);
  attrs.Set("pads", pads);
  attrs.Set("unpooled_spatial", unpooled);
  attrs.Set("output_spatial", out);
  return n.Emit("MaxUnpool", {n.input(0), n.input(1)}, std::move(attrs), {n.output(0)});
}

Outputs MaxUnpoolCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  const std::vector<int64_t> k = n.attrs.GetInts("kernel_shape"), s = n.attrs.GetInts("strides"),
                             pads = n.attrs.GetInts("pads"), out = n.attrs.GetInts("output_spatial"),
                             unpooled = n.attrs.GetInts("unpooled_spatial");
  ops::UnpoolParams p{{k[0], k[1]}, {s[0], s[1]}, {pads[0], pads[1]}, {unpooled[0], unpooled[1]}, {out[0], out[1]}};
  return One(ops::MaxUnpool(b, in[0], in[1], p, n.name));
}

absl::Status InferMaxUnpool(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const std::vector<int64_t> k = n.attrs.GetInts("kernel_shape"), s = n.attrs.GetInts("strides"),
                             pads = n.attrs.GetInts("pads"), spatial = n.attrs.GetInts("output_spatial"),
                             unpooled = n.attrs.GetInts("unpooled_spatial");
  if (in[0].shape.size() != 4 || k.size() != 2 || s.size() != 2 || pads.size() != 4 || spatial.size() != 2 ||
      unpooled.size() != 2 || unpooled[0] < 1 || unpooled[1] < 1 || spatial[0] < unpooled[0] || spatial[1] < unpooled[1])
    return Error("MaxUnpool takes [N, C, H, W] with 2-D kernel_shape, strides, unpooled and output extents (output >= unpooled) and 4 pads");
  if (!te::IsInt(in[1].dtype) || in[1].shape != in[0].shape)
    return Error(StrCat("indices ", in[1].ToString(), " should be integers shaped like X ", in[0].ToString()));
  for (int64_t v : {k[0], k[1], s[0], s[1], spatial[0], spatial[1]})
    if (v < 1) return Error("kernel_shape, strides and the output size must be positive");
  *out = {TensorType{in[0].dtype, {in[0].shape[0], in[0].shape[1], spatial[0], spatial[1]}}};
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConvTransposeWindow> ResolveConvTranspose(const Node& n, const std::vector<int64_t>& x,
                                                         const std::vector<int64_t>& wt) {
  size_t spatial = x.size() - 2;
  int64_t group = n.attrs.GetInt("group", 1);
  if (group <= 0 || x[1] != wt[0] || x[1] % group != 0)
    return Error(StrCat("channels do not match: X ", ShapeToString(x), ", W ", ShapeToString(wt), ", group ", group));
  std::vector<int64_t> kernel = n.attrs.GetInts("kernel_shape");
  if (kernel.empty()) kernel.assign(wt.begin() + 2, wt.end());
  if (kernel != std::vector<int64_t>(wt.begin() + 2, wt.end())) return Error("kernel_shape differs from W's spatial dims");
  auto window = ReadWindow(n, kernel, spatial);
  if (!window.ok()) return window.status();
  ConvTransposeWindow w{window->kernel, window->strides, window->pads, window->dilations,
                        n.attrs.GetInts("output_padding"), {}};
  if (w.output_padding.empty()) w.output_padding.assign(spatial, 0);
  if (w.output_padding.size() != spatial) return Error("output_padding does not match the spatial dims");
  std::vector<int64_t> target = n.attrs.GetInts("output_shape");
  std::string auto_pad = n.attrs.GetString("auto_pad", "NOTSET");
  if (target.size() == spatial + 2) target.erase(target.begin(), target.begin() + 2);
  if (target.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
    for (size_t i = 0; i < spatial; ++i) target.push_back(x[2 + i] * w.strides[i]);
  if (!target.empty()) {
    // The spec: total = stride * (D - 1) + output_padding + (R - 1) * dil + 1 - out; SAME_UPPER
    // (and plain output_shape) put the odd pixel at the end.
    if (target.size() != spatial) return Error("output_shape does not match the spatial dims");
    for (size_t i = 0; i < spatial; ++i) {
      int64_t total = w.strides[i] * (x[2 + i] - 1) + w.output_padding[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 -
                      target[i];
      if (total < 0) {  // a larger output than the window covers: extra output padding
        w.output_padding[i] -= total;
        total = 0;
      }
      w.pads[i] = auto_pad == "SAME_LOWER" ? total - total / 2 : total / 2;
      w.pads[i + spatial] = total - w.pads[i];
    }
  } else if (auto_pad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (auto_pad != "NOTSET" && !auto_pad.empty()) {
    return Error(StrCat("unknown auto_pad '", auto_pad, "'"));
  }
  w.output_shape = {x[0], wt[1] * group};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t o = w.strides[i] * (x[2 + i] - 1) + w.output_padding[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 -
                w.pads[i] - w.pads[i + spatial];
    if (o <= 0) return Error(StrCat("output extent ", o, " on spatial axis ", i, " is not positive"));
    w.output_shape.push_back(o);
  }
  return w;
}

void RegisterConvFamily(OpRegistry* r) {
  r->Register({"Conv", 2, 3, 1, With(kWindowAttrs, {Int("group", 1)}), InferConv, OpPattern::kOutElementwiseFusable});
  r->Register({"ConvTranspose", 2, 3, 1,
               With(kWindowAttrs, {Int("group", 1), IntList("output_padding"), IntList("output_shape"),
                                   Str("auto_pad", "NOTSET")}),
               InferConvTranspose, OpPattern::kOutElementwiseFusable});
  r->Register({"MaxPool", 1, 1, 1, With(kWindowAttrs, {Int("ceil_mode", 0), Int("storage_order", 0)}), InferPool,
               OpPattern::kOutElementwiseFusable});
  // MaxPool whose Indices output is read (the frontend picks it).
  r->Register({"MaxPoolWithIndices", 1, 1, 2, With(kWindowAttrs, {Int("ceil_mode", 0), Int("storage_order", 0)}),
               InferMaxPoolWithIndices, OpPattern::kOpaque});
  r->Register({"AveragePool", 1, 1, 1, With(kWindowAttrs, {Int("ceil_mode", 0), Int("count_include_pad", 0)}),
               InferPool, OpPattern::kOutElementwiseFusable});
  r->Register({"GlobalAveragePool", 1, 1, 1, {}, InferGlobalPool, OpPattern::kOutElementwiseFusable});
  r->Register({"GlobalMaxPool", 1, 1, 1, {}, InferGlobalPool, OpPattern::kOutElementwiseFusable});

  Set(r, "Conv", ConvCompute);
  Set(r, "ConvTranspose", ConvTransposeCompute);
  r->Register({"MaxUnpool", 2, 2, 1,
               {Required("kernel_shape", AttrKind::kInts), Required("strides", AttrKind::kInts),
                Required("pads", AttrKind::kInts), Required("unpooled_spatial", AttrKind::kInts),
                Required("output_spatial", AttrKind::kInts)},
               InferMaxUnpool, OpPattern::kOpaque});
  Set(r, "MaxUnpool", MaxUnpoolCompute);
  r->RegisterOnnx({"MaxUnpool", 9, -1, ConvertMaxUnpool});
  Set(r, "MaxPool", PoolFn(ops::PoolKind::kMax));
  Set(r, "MaxPoolWithIndices", MaxPoolWithIndicesCompute);
  Set(r, "AveragePool", PoolFn(ops::PoolKind::kAvg));
  Set(r, "GlobalAveragePool", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::GlobalPool(b, in[0], ops::PoolKind::kAvg, n.name));
  });
  Set(r, "GlobalMaxPool", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::GlobalPool(b, in[0], ops::PoolKind::kMax, n.name));
  });

  for (const char* name : {"Conv", "MaxPool", "AveragePool"}) r->RegisterOnnx({name, 1, -1, ConvertWindowed});
}

}  // namespace tunefarm::graph
