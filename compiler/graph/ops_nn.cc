// Neural-network ops: convolution, pooling, normalization, dense, softmax, reductions.
// Conv and pooling carry explicit pads: the frontend resolves ONNX's auto_pad before adding them.
#include <algorithm>

#include "compiler/graph/conv_transpose_attrs.h"
#include "compiler/graph/ops_common.h"

namespace tunefarm::graph {
namespace {
using namespace ops;

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
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "X"));
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

absl::Status InferBatchNorm(const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  if (in[0].shape.size() < 2) return Error(StrCat("X must have rank >= 2, got ", in[0].ToString()));
  for (size_t i = 1; i < 5; ++i)
    if (in[i].shape != std::vector<int64_t>{in[0].shape[1]})
      return Error(StrCat("input ", i, " must be [", in[0].shape[1], "], got ", in[i].ToString()));
  *out = {in[0]};
  return absl::OkStatus();
}

// Y, running_mean, running_var.
absl::Status InferBatchNormTraining(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(InferBatchNorm(n, in, out));
  *out = {in[0], in[3], in[4]};
  return absl::OkStatus();
}

absl::Status InferGemm(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedRank(in[0], 2, "A"));
  TF_RETURN_IF_ERROR(NeedRank(in[1], 2, "B"));
  TF_RETURN_IF_ERROR(SameDType(in, 0, 1));
  bool ta = n.attrs.GetInt("transA") != 0, tb = n.attrs.GetInt("transB") != 0;
  int64_t m = in[0].shape[ta ? 1 : 0], k = in[0].shape[ta ? 0 : 1];
  int64_t kb = in[1].shape[tb ? 1 : 0], nn = in[1].shape[tb ? 0 : 1];
  if (k != kb) return Error(StrCat("inner dims differ: A ", in[0].ToString(), ", B ", in[1].ToString()));
  std::vector<int64_t> shape = {m, nn};
  if (in.size() == 3) {
    auto s = BroadcastShapes(in[2].shape, shape);
    if (!s.ok() || *s != shape) return Error(StrCat("C ", in[2].ToString(), " does not broadcast to [", m, ",", nn, "]"));
  }
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferMatMul(const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(SameDType(in, 0, 1));
  std::vector<int64_t> a = in[0].shape, b = in[1].shape;
  if (a.empty() || b.empty()) return Error("MatMul inputs must have rank >= 1");
  bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2])
    return Error(StrCat("inner dims differ: ", in[0].ToString(), " x ", in[1].ToString()));
  auto batch = BroadcastShapes(std::vector<int64_t>(a.begin(), a.end() - 2), std::vector<int64_t>(b.begin(), b.end() - 2));
  if (!batch.ok()) return batch.status();
  std::vector<int64_t> shape = *batch;
  if (!a_vec) shape.push_back(a[a.size() - 2]);
  if (!b_vec) shape.push_back(b.back());
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferAxisSame(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "input"));
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(in[0].shape.size()));
  if (!axis.ok()) return axis.status();
  *out = {in[0]};
  return absl::OkStatus();
}

absl::Status InferLayerNorm(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "X"));
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), rank);
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> norm(in[0].shape.begin() + *axis, in[0].shape.end());
  for (size_t i = 1; i < in.size(); ++i) {
    auto s = BroadcastShapes(in[i].shape, norm);
    if (!s.ok() || *s != norm)
      return Error(StrCat("input ", i, " ", in[i].ToString(), " does not broadcast to ", ShapeToString(norm)));
  }
  *out = {in[0]};
  return absl::OkStatus();
}

// Y, then Mean and InvStdDev of shape x.shape[:axis] + 1s.
absl::Status InferLayerNormStats(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(InferLayerNorm(n, in, out));
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(in[0].shape.size()));
  TensorType stats = in[0];
  std::fill(stats.shape.begin() + *axis, stats.shape.end(), 1);
  *out = {in[0], stats, stats};
  return absl::OkStatus();
}

absl::Status InferReduce(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  std::vector<int64_t> axes = n.attrs.GetInts("axes");
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    auto axis = NormalizeAxis(a, rank);
    if (!axis.ok()) return axis.status();
    reduced[*axis] = true;
  }
  bool keep = n.attrs.GetInt("keepdims") != 0;
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i]) shape.push_back(in[0].shape[i]);
    else if (keep) shape.push_back(1);
  }
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

// ArgMax / ArgMin: int64 indices, the axis kept as 1 or dropped.
absl::Status InferArgReduce(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const int64_t rank = static_cast<int64_t>(in[0].shape.size());
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), rank);
  if (!axis.ok()) return axis.status();
  if (in[0].shape[*axis] == 0) return Error("the reduced axis is empty");
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != *axis) shape.push_back(in[0].shape[i]);
    else if (n.attrs.GetInt("keepdims") != 0) shape.push_back(1);
  }
  *out = {TensorType{te::DType::kInt64, shape}};
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

std::vector<AttrSpec> With(std::vector<AttrSpec> base, std::vector<AttrSpec> more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
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

void RegisterNnOps(OpRegistry* r) {
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
  r->Register({"BatchNormalization", 5, 5, 1, {Float("epsilon", 1e-5), Float("momentum", 0.9)}, InferBatchNorm,
               OpPattern::kBroadcast});
  // Training-mode BatchNormalization (the frontend picks it): normalizes with the batch's
  // statistics and returns the running statistics updated by momentum.
  r->Register({"BatchNormalizationTraining", 5, 5, 3, {Float("epsilon", 1e-5), Float("momentum", 0.9)},
               InferBatchNormTraining, OpPattern::kOpaque});
  r->Register({"Gemm", 2, 3, 1, {Float("alpha", 1.0), Float("beta", 1.0), Int("transA", 0), Int("transB", 0)},
               InferGemm, OpPattern::kOutElementwiseFusable});
  r->Register({"MatMul", 2, 2, 1, {}, InferMatMul, OpPattern::kOutElementwiseFusable});
  r->Register({"Softmax", 1, 1, 1, {Int("axis", -1)}, InferAxisSame, OpPattern::kOpaque});
  r->Register({"LogSoftmax", 1, 1, 1, {Int("axis", -1)}, InferAxisSame, OpPattern::kOpaque});
  r->Register({"Hardmax", 1, 1, 1, {Int("axis", -1)}, InferAxisSame, OpPattern::kOpaque});
  r->Register({"CumSum", 1, 1, 1, {Int("axis", 0), Int("exclusive", 0), Int("reverse", 0)},
               [](const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(in[0].shape.size()));
                 if (!axis.ok()) return axis.status();
                 *out = {in[0]};
                 return absl::OkStatus();
               },
               OpPattern::kOpaque});
  r->Register({"LayerNormalization", 2, 3, 1, {Int("axis", -1), Float("epsilon", 1e-5), Int("stash_type", 1)},
               InferLayerNorm, OpPattern::kOpaque});
  // LayerNormalization whose Mean and InvStdDev outputs are read (the frontend picks it).
  r->Register({"LayerNormalizationWithStats", 2, 3, 3, {Int("axis", -1), Float("epsilon", 1e-5), Int("stash_type", 1)},
               InferLayerNormStats, OpPattern::kOpaque});
  for (const char* name : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                           "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"})
    r->Register({name, 1, 1, 1, {IntList("axes"), Int("keepdims", 1)}, InferReduce, OpPattern::kReduction});
  for (const char* name : {"ArgMax", "ArgMin"})
    r->Register({name, 1, 1, 1, {Int("axis", 0), Int("keepdims", 1), Int("select_last_index", 0)}, InferArgReduce,
                 OpPattern::kOpaque});
}

}  // namespace tunefarm::graph
