// Computes of the NCHW[x]c ops (ops_layout.cc): layout transforms, the blocked conv with its
// bias, and the blocked pools. A pool over [N, C/x, H, W, x] is the NCHW pool with one more
// spatial axis (the lanes) of window 1, so it reuses ops::Pool unchanged.
#include "compiler/graph/compute_common.h"
#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/layout.h"
#include "compiler/ops/pooling.h"
#include "compiler/ops/reduce.h"
#include "compiler/ops/winograd.h"

namespace tunefarm::graph {
namespace {
using namespace compute;
using Axes = te::DagBuilder::Axes;

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

void RegisterLayoutComputes(OpRegistry* r) {
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
