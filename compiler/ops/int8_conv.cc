#include "compiler/ops/int8_conv.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> Conv2dU8S8(DagBuilder& b, const Tensor& x, const Tensor& w, const Int8ConvParams& p,
                                  std::string name) {
  constexpr std::string_view kOp = "conv2d_u8s8";
  if (auto s = CheckShape(kOp, "x", x.shape); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "w", w.shape); !s.ok()) return s;
  if (x.dtype != DType::kUInt8 || w.dtype != DType::kInt8)
    return OpError(kOp, StrCat("expects uint8 x and int8 w, got ", te::DTypeName(x.dtype), " and ", te::DTypeName(w.dtype)));
  const int64_t block = x.shape.size() == 5 ? x.shape[4] : 0;
  if (block <= 0 || block % kInt8DotDepth != 0)
    return OpError(kOp, StrCat("x must be [N, C/B, H, W, B] with B a multiple of 4, got ", ShapeString(x.shape)));
  const int64_t quads = block / kInt8DotDepth;  // groups of four channels per block of x
  if (w.shape.size() != 6 || w.shape[4] != kInt8DotLanes || w.shape[5] != kInt8DotDepth ||
      w.shape[1] != x.shape[1] * quads)
    return OpError(kOp, StrCat("w must be [K/16, C/4, R, S, 16, 4] with x's C/4 = ", x.shape[1] * quads, ", got ",
                               ShapeString(w.shape)));
  if (p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 || p.dilation_w < 1)
    return OpError(kOp, "strides and dilations must be positive");
  const int64_t r = w.shape[2], s = w.shape[3];
  const int64_t oh = (x.shape[2] - (r - 1) * p.dilation_h - 1) / p.stride_h + 1;
  const int64_t ow = (x.shape[3] - (s - 1) * p.dilation_w - 1) / p.stride_w + 1;
  if (oh < 1 || ow < 1) return OpError(kOp, StrCat("the window does not fit x ", ShapeString(x.shape)));
  const Shape out = {x.shape[0], w.shape[0], oh, ow, kInt8DotLanes};
  // Reduce axes: x's channel blocks, then r and s, then (for blocks wider than four) the groups
  // of four channels inside a block, whose bytes are adjacent in x.
  Shape reduce = {x.shape[1], r, s};
  if (quads > 1) reduce.push_back(quads);
  return b.Reduce(std::move(name), te::ReduceKind::kSum, out, reduce, [&](const Axes& i, const Axes& k) {
    const Expr ih = i[2] * p.stride_h + k[1] * p.dilation_h, iw = i[3] * p.stride_w + k[2] * p.dilation_w;
    const Expr w_quad = quads > 1 ? k[0] * quads + k[3] : k[0];
    Expr sum;
    for (int64_t j = 0; j < kInt8DotDepth; ++j) {
      Expr product = te::Cast(DType::kInt32, x({i[0], k[0], ih, iw, quads > 1 ? k[3] * kInt8DotDepth + j : Expr(j)})) *
                     te::Cast(DType::kInt32, w({i[1], w_quad, k[1], k[2], i[4], Expr(j)}));
      sum = sum.defined() ? sum + product : product;
    }
    return sum;
  });
}

}  // namespace tunefarm::ops
