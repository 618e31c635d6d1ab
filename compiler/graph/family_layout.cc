// The NCHW[x]c layout family: internal ops (passes/layout.h creates them; no ONNX file names them).
// A blocked value is [N, C/x, H, W, x]; its block x is its last dim. Window attributes are the
// ONNX ones of the NCHW op, so inference reuses that op's rules on the unblocked shapes.
//   LayoutTransform   NCHW <-> NCHWc (src_layout/dst_layout "NCHW" or "NCHWc", block, channels)
//   ConvNCHWc         data [N,C/x,H,W,x], weight [K/y,Cg/xi,R,S,xi,y], bias [K/y,1,1,y]
//   MaxPoolNCHWc, AveragePoolNCHWc, GlobalAveragePoolNCHWc, GlobalMaxPoolNCHWc
//   WinogradDataPack  data [N,C/x,H,W,x] -> V [C/x, P, a, a, x] (tile, pads; P tiles, a = tile + 2)
//   WinogradBatchGemm V, U [a,a,K/y,C/x,x,y] -> M [a, a, K/y, P, y]
//   WinogradInverse   M, bias [K/y,1,1,y] -> [N, K/y, OH, OW, y] (tile, batch, output_height/width)
//                     (compiler/ops/winograd.h; passes/layout.h picks them for 3x3 stride-1 convs)
// A blocked pool over [N, C/x, H, W, x] is the NCHW pool with one more spatial axis (the lanes) of
// window 1, so it reuses ops::Pool unchanged.
#include "compiler/graph/family_common.h"
#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/layout.h"
#include "compiler/ops/pooling.h"
#include "compiler/ops/reduce.h"
#include "compiler/ops/winograd.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Axes = te::DagBuilder::Axes;

// A blocked shape [N, CB, H, W, x] as the NCHW shape it stands for (C = CB * x).
std::vector<int64_t> Unblocked(const std::vector<int64_t>& s) { return {s[0], s[1] * s[4], s[2], s[3]}; }

std::vector<int64_t> Blocked(const std::vector<int64_t>& s, int64_t block) {
  return {s[0], s[1] / block, s[2], s[3], block};
}

absl::Status NeedBlocked(const TensorType& t, const char* what) {
  TF_RETURN_IF_ERROR(NeedRank(t, 5, what));
  for (int64_t d : t.shape)
    if (d <= 0) return Error(StrCat(what, " has a non-positive dim: ", t.ToString()));
  return absl::OkStatus();
}

// Runs the NCHW op's inference on the unblocked shapes.
absl::Status InferAs(const char* op, const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const OpSchema* schema = OpRegistry::Global().Find(op);
  if (schema == nullptr) return Error(StrCat("no schema for ", op));
  return schema->infer(n, in, out);
}

absl::Status InferLayoutTransform(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  std::string src = n.attrs.GetString("src_layout"), dst = n.attrs.GetString("dst_layout");
  int64_t block = n.attrs.GetInt("block"), channels = n.attrs.GetInt("channels");
  if (block < 1) return Error("block must be >= 1");
  TensorType t = in[0];
  if (src == "NCHW" && dst == "NCHWc") {
    if (t.shape.size() < 3) return Error(StrCat("input must have rank >= 3, got ", t.ToString()));
    t.shape[1] = (t.shape[1] + block - 1) / block;
    t.shape.push_back(block);
  } else if (src == "NCHWc" && dst == "NCHW") {
    if (t.shape.size() < 4) return Error(StrCat("input must have rank >= 4, got ", t.ToString()));
    if (t.shape.back() != block) return Error(StrCat("input ", t.ToString(), " is not in blocks of ", block));
    if (channels < 1 || channels > t.shape[1] * block)
      return Error(StrCat(channels, " channels do not fit ", t.ToString()));
    t.shape.pop_back();
    t.shape[1] = channels;
  } else {
    return Error(StrCat("unsupported layout transform ", src, " -> ", dst));
  }
  *out = {t};
  return absl::OkStatus();
}

absl::Status InferConvNchwc(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedBlocked(in[0], "data"));
  TF_RETURN_IF_ERROR(NeedRank(in[1], 6, "weight"));
  const auto& w = in[1].shape;
  const int64_t y = w[5];
  if (y <= 0 || w[4] <= 0) return Error(StrCat("weight has a non-positive block: ", in[1].ToString()));
  TensorType x4{in[0].dtype, Unblocked(in[0].shape)};
  TensorType w4{in[1].dtype, {w[0] * y, w[1] * w[4], w[2], w[3]}};
  TF_RETURN_IF_ERROR(InferAs("Conv", n, {x4, w4}, out));
  if (in.size() == 3 && in[2].shape != std::vector<int64_t>{w[0], 1, 1, y})
    return Error(StrCat("bias must be [", w[0], ",1,1,", y, "], got ", in[2].ToString()));
  (*out)[0].shape = Blocked((*out)[0].shape, y);
  return absl::OkStatus();
}

int64_t TilesOf(int64_t extent, int64_t tile) { return (extent + tile - 1) / tile; }

absl::Status NeedTile(const Node& n) {
  const int64_t tile = n.attrs.GetInt("tile");
  if (tile != 2 && tile != 4) return Error(StrCat("tile must be 2 or 4, got ", tile));
  return absl::OkStatus();
}

absl::Status InferWinogradDataPack(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedBlocked(in[0], "data"));
  TF_RETURN_IF_ERROR(NeedTile(n));
  const int64_t tile = n.attrs.GetInt("tile"), alpha = tile + 2;
  const std::vector<int64_t> pads = n.attrs.GetInts("pads");
  if (pads.size() != 4) return Error("pads must have 4 values");
  for (int64_t pad : pads)
    if (pad < 0) return Error("pads must be >= 0");
  const auto& s = in[0].shape;
  const int64_t oh = s[2] + pads[0] + pads[2] - 2, ow = s[3] + pads[1] + pads[3] - 2;
  if (oh < 1 || ow < 1) return Error(StrCat("a 3x3 window does not fit ", in[0].ToString(), " with these pads"));
  *out = {TensorType{in[0].dtype, {s[1], s[0] * TilesOf(oh, tile) * TilesOf(ow, tile), alpha, alpha, s[4]}}};
  return absl::OkStatus();
}

absl::Status InferWinogradBatchGemm(const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedRank(in[0], 5, "V"));
  TF_RETURN_IF_ERROR(NeedRank(in[1], 6, "weight"));
  if (in[0].dtype != in[1].dtype) return Error("V and the weight have different dtypes");
  const auto& v = in[0].shape;
  const auto& u = in[1].shape;
  if (u[0] != v[2] || u[1] != v[3] || u[3] != v[0] || u[4] != v[4])
    return Error(StrCat("weight ", in[1].ToString(), " does not fit V ", in[0].ToString()));
  *out = {TensorType{in[0].dtype, {v[2], v[3], u[2], v[1], u[5]}}};
  return absl::OkStatus();
}

absl::Status InferWinogradInverse(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedRank(in[0], 5, "M"));
  TF_RETURN_IF_ERROR(NeedTile(n));
  const int64_t tile = n.attrs.GetInt("tile"), batch = n.attrs.GetInt("batch");
  const int64_t oh = n.attrs.GetInt("output_height"), ow = n.attrs.GetInt("output_width");
  const auto& m = in[0].shape;
  if (batch < 1 || oh < 1 || ow < 1 || m[0] != tile + 2 || m[1] != tile + 2 ||
      m[3] != batch * TilesOf(oh, tile) * TilesOf(ow, tile))
    return Error(StrCat("M ", in[0].ToString(), " does not hold the tiles of ", batch, "x", oh, "x", ow));
  if (in.size() == 2 && in[1].shape != std::vector<int64_t>{m[2], 1, 1, m[4]})
    return Error(StrCat("bias must be [", m[2], ",1,1,", m[4], "], got ", in[1].ToString()));
  *out = {TensorType{in[0].dtype, {batch, m[2], oh, ow, m[4]}}};
  return absl::OkStatus();
}

InferFn InferPoolNchwc(const char* op) {
  return [op](const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) -> absl::Status {
    TF_RETURN_IF_ERROR(NeedBlocked(in[0], "X"));
    TF_RETURN_IF_ERROR(InferAs(op, n, {TensorType{in[0].dtype, Unblocked(in[0].shape)}}, out));
    (*out)[0].shape = Blocked((*out)[0].shape, in[0].shape[4]);
    return absl::OkStatus();
  };
}

const std::vector<AttrSpec> kWindow = {IntList("kernel_shape"), IntList("strides"), IntList("pads"),
                                       IntList("dilations")};

Outputs LayoutTransformCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  if (n.attrs.GetString("src_layout") == "NCHW") return One(ops::NchwToNchwc(b, in[0], n.attrs.GetInt("block"), n.name));
  return One(ops::NchwcToNchw(b, in[0], n.attrs.GetInt("channels"), n.name));
}

Outputs ConvNchwcCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  std::vector<int64_t> strides = IntsOr(n, "strides", 2, 1), dil = IntsOr(n, "dilations", 2, 1);
  std::vector<int64_t> pads = IntsOr(n, "pads", 4, 0);
  ops::Conv2dParams p;
  p.groups = n.attrs.GetInt("group");
  p.stride = {strides[0], strides[1]};
  p.padding = {pads[0], pads[1], pads[2], pads[3]};
  p.dilation = {dil[0], dil[1]};
  auto y = ops::Conv2dNchwc(b, in[0], in[1], p, in.size() == 3 ? StrCat(n.name, ".conv") : n.name);
  if (!y.ok() || in.size() < 3) return One(std::move(y));
  // bias [K/y, 1, 1, y] right-aligns with [N, K/y, OH, OW, y].
  TeTensor conv = *y, bias = in[2];
  return std::vector<TeTensor>{
      b.Compute(n.name, conv.shape, [&](const Axes& i) { return conv(i) + ops::BroadcastRead(bias, i); })};
}

Outputs WinogradDataPackCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  std::vector<int64_t> pads = IntsOr(n, "pads", 4, 0);
  ops::WinogradParams p{static_cast<int>(n.attrs.GetInt("tile")), {pads[0], pads[1], pads[2], pads[3]}};
  return One(ops::WinogradDataPack(b, in[0], p, n.name));
}

Outputs WinogradBatchGemmCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  return One(ops::WinogradBatchGemm(b, in[0], in[1], n.name));
}

Outputs WinogradInverseCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  auto y = ops::WinogradInverse(b, in[0], static_cast<int>(n.attrs.GetInt("tile")), n.attrs.GetInt("batch"),
                                n.attrs.GetInt("output_height"), n.attrs.GetInt("output_width"),
                                in.size() == 2 ? StrCat(n.name, ".inverse") : n.name);
  if (!y.ok() || in.size() < 2) return One(std::move(y));
  TeTensor conv = *y, bias = in[1];
  return std::vector<TeTensor>{
      b.Compute(n.name, conv.shape, [&](const Axes& i) { return conv(i) + ops::BroadcastRead(bias, i); })};
}

ComputeFn PoolNchwcFn(ops::PoolKind kind) {
  return [kind](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    ops::PoolParams p;
    p.kind = kind;
    p.kernel = n.attrs.GetInts("kernel_shape");
    p.stride = IntsOr(n, "strides", 2, 1);
    p.dilation = IntsOr(n, "dilations", 2, 1);
    std::vector<int64_t> pads = IntsOr(n, "pads", 4, 0);
    p.kernel.push_back(1);
    p.stride.push_back(1);
    p.dilation.push_back(1);
    p.padding = {pads[0], pads[1], 0, pads[2], pads[3], 0};
    p.ceil_mode = n.attrs.GetInt("ceil_mode") != 0;
    p.count_include_pad = n.attrs.GetInt("count_include_pad") != 0;
    return One(ops::Pool(b, in[0], p, n.name));
  };
}

ComputeFn GlobalPoolNchwcFn(ops::ReduceOp op) {
  return [op](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    return One(ops::Reduce(b, in[0], ops::ReduceParams{op, {2, 3}, true}, n.name));
  };
}

}  // namespace

void RegisterLayoutFamily(OpRegistry* r) {
  // Injective: a boundary copy; it fuses with views after it but never into a conv's epilogue.
  r->Register({"LayoutTransform", 1, 1, 1,
               {Required("src_layout", AttrKind::kString), Required("dst_layout", AttrKind::kString),
                Required("block", AttrKind::kInt), Int("channels", 0)},
               InferLayoutTransform, OpPattern::kInjective});
  r->Register({"ConvNCHWc", 2, 3, 1, With(kWindow, {Int("group", 1)}), InferConvNchwc,
               OpPattern::kOutElementwiseFusable});
  // The transform and the batched GEMM stay kernels of their own (the tuner tunes each); the
  // inverse takes the conv's epilogue.
  r->Register({"WinogradDataPack", 1, 1, 1, {Required("tile", AttrKind::kInt), IntList("pads", {0, 0, 0, 0})},
               InferWinogradDataPack, OpPattern::kOpaque});
  r->Register({"WinogradBatchGemm", 2, 2, 1, {}, InferWinogradBatchGemm, OpPattern::kOpaque});
  r->Register({"WinogradInverse", 1, 2, 1,
               {Required("tile", AttrKind::kInt), Required("batch", AttrKind::kInt),
                Required("output_height", AttrKind::kInt), Required("output_width", AttrKind::kInt)},
               InferWinogradInverse, OpPattern::kOutElementwiseFusable});
  r->Register({"MaxPoolNCHWc", 1, 1, 1, With(kWindow, {Int("ceil_mode", 0), Int("storage_order", 0)}),
               InferPoolNchwc("MaxPool"), OpPattern::kOutElementwiseFusable});
  r->Register({"AveragePoolNCHWc", 1, 1, 1, With(kWindow, {Int("ceil_mode", 0), Int("count_include_pad", 0)}),
               InferPoolNchwc("AveragePool"), OpPattern::kOutElementwiseFusable});
  r->Register({"GlobalAveragePoolNCHWc", 1, 1, 1, {}, InferPoolNchwc("GlobalAveragePool"),
               OpPattern::kOutElementwiseFusable});
  r->Register({"GlobalMaxPoolNCHWc", 1, 1, 1, {}, InferPoolNchwc("GlobalMaxPool"), OpPattern::kOutElementwiseFusable});

  Set(r, "LayoutTransform", LayoutTransformCompute);
  Set(r, "ConvNCHWc", ConvNchwcCompute);
  Set(r, "WinogradDataPack", WinogradDataPackCompute);
  Set(r, "WinogradBatchGemm", WinogradBatchGemmCompute);
  Set(r, "WinogradInverse", WinogradInverseCompute);
  Set(r, "MaxPoolNCHWc", PoolNchwcFn(ops::PoolKind::kMax));
  Set(r, "AveragePoolNCHWc", PoolNchwcFn(ops::PoolKind::kAvg));
  Set(r, "GlobalAveragePoolNCHWc", GlobalPoolNchwcFn(ops::ReduceOp::kMean));
  Set(r, "GlobalMaxPoolNCHWc", GlobalPoolNchwcFn(ops::ReduceOp::kMax));
}

}  // namespace tunefarm::graph
