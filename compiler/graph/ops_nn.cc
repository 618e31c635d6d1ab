// Neural-network ops: convolution, pooling, normalization, dense, softmax, reductions.
// Conv and pooling carry explicit pads: the frontend resolves ONNX's auto_pad before adding them.
#include <algorithm>

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
    int64_t padded = x[2 + i] + w.pads[i] + w.pads[i + spatial];
    int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
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

const std::vector<AttrSpec> kWindowAttrs = {IntList("kernel_shape"), IntList("strides"), IntList("pads"),
                                            IntList("dilations")};

std::vector<AttrSpec> With(std::vector<AttrSpec> base, std::vector<AttrSpec> more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

}  // namespace

void RegisterNnOps(OpRegistry* r) {
  r->Register({"Conv", 2, 3, 1, With(kWindowAttrs, {Int("group", 1)}), InferConv, OpPattern::kOutElementwiseFusable});
  r->Register({"MaxPool", 1, 1, 1, With(kWindowAttrs, {Int("ceil_mode", 0), Int("storage_order", 0)}), InferPool,
               OpPattern::kOutElementwiseFusable});
  r->Register({"AveragePool", 1, 1, 1, With(kWindowAttrs, {Int("ceil_mode", 0), Int("count_include_pad", 0)}),
               InferPool, OpPattern::kOutElementwiseFusable});
  r->Register({"GlobalAveragePool", 1, 1, 1, {}, InferGlobalPool, OpPattern::kOutElementwiseFusable});
  r->Register({"GlobalMaxPool", 1, 1, 1, {}, InferGlobalPool, OpPattern::kOutElementwiseFusable});
  r->Register({"BatchNormalization", 5, 5, 1, {Float("epsilon", 1e-5), Float("momentum", 0.9)}, InferBatchNorm,
               OpPattern::kBroadcast});
  r->Register({"Gemm", 2, 3, 1, {Float("alpha", 1.0), Float("beta", 1.0), Int("transA", 0), Int("transB", 0)},
               InferGemm, OpPattern::kOutElementwiseFusable});
  r->Register({"MatMul", 2, 2, 1, {}, InferMatMul, OpPattern::kOutElementwiseFusable});
  r->Register({"Softmax", 1, 1, 1, {Int("axis", -1)}, InferAxisSame, OpPattern::kOpaque});
  r->Register({"LogSoftmax", 1, 1, 1, {Int("axis", -1)}, InferAxisSame, OpPattern::kOpaque});
  r->Register({"LayerNormalization", 2, 3, 1, {Int("axis", -1), Float("epsilon", 1e-5), Int("stash_type", 1)},
               InferLayerNorm, OpPattern::kOpaque});
  for (const char* name : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                           "ReduceL2"})
    r->Register({name, 1, 1, 1, {IntList("axes"), Int("keepdims", 1)}, InferReduce, OpPattern::kReduction});
}

}  // namespace tunefarm::graph
