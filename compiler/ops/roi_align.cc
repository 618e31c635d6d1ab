#include "compiler/ops/roi_align.h"

#include "common/strings.h"
#include "compiler/ops/unary.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> RoiAlign(DagBuilder& b, const Tensor& x, const Tensor& rois, const Tensor& batch_indices,
                                const RoiAlignParams& p, std::string name) {
  constexpr std::string_view kOp = "roi_align";
  if (auto s = CheckShape(kOp, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "input", x.dtype, DTypeSet::kFloat); !s.ok()) return s;
  if (x.shape.size() != 4) return OpError(kOp, StrCat("input ", ShapeString(x.shape), " is not [N, C, H, W]"));
  if (rois.dtype != x.dtype || rois.shape.size() != 2 || rois.shape[1] != 4)
    return OpError(kOp, StrCat("rois ", ShapeString(rois.shape), " is not [R, 4] of the input's dtype"));
  if (auto s = CheckDType(kOp, "batch_indices", batch_indices.dtype, DTypeSet::kInt); !s.ok()) return s;
  if (batch_indices.shape != Shape{rois.shape[0]})
    return OpError(kOp, StrCat("batch_indices ", ShapeString(batch_indices.shape), " is not [", rois.shape[0], "]"));
  if (p.output_height < 1 || p.output_width < 1)
    return OpError(kOp, StrCat("output size ", p.output_height, "x", p.output_width, " is not positive"));
  if (p.sampling_ratio < 1 || p.sampling_ratio > 64)
    return OpError(kOp, StrCat("sampling_ratio ", p.sampling_ratio,
                               " is not in [1, 64]: the adaptive count (0) depends on each box's size at run time"));
  const DType t = x.dtype;
  const int64_t N = x.shape[0], H = x.shape[2], W = x.shape[3], S = p.sampling_ratio;
  auto c = [&](double v) { return te::Const(t, v); };
  auto as_float = [&](const Expr& i) { return te::Cast(t, i); };
  const double offset = p.half_pixel ? 0.5 : 0.0;
  const std::vector<int64_t> out_shape = {rois.shape[0], x.shape[1], p.output_height, p.output_width};

  auto sample = [&](const Axes& i, const Axes& r) {
    Expr roi = i[0];
    // The box in input pixels, and the size of one output bin (at least one pixel wide in
    // output_half_pixel mode, as ONNX 10 had it).
    Expr start_w = rois({roi, Expr(int64_t{0})}) * c(p.spatial_scale) - c(offset);
    Expr start_h = rois({roi, Expr(int64_t{1})}) * c(p.spatial_scale) - c(offset);
    Expr size_w = rois({roi, Expr(int64_t{2})}) * c(p.spatial_scale) - c(offset) - start_w;
    Expr size_h = rois({roi, Expr(int64_t{3})}) * c(p.spatial_scale) - c(offset) - start_h;
    if (!p.half_pixel) {
      size_w = te::Max(size_w, c(1));
      size_h = te::Max(size_h, c(1));
    }
    Expr bin_w = size_w / c(static_cast<double>(p.output_width));
    Expr bin_h = size_h / c(static_cast<double>(p.output_height));
    Expr y = start_h + as_float(i[2]) * bin_h + (as_float(r[0]) + c(0.5)) * bin_h / c(static_cast<double>(S));
    Expr xx = start_w + as_float(i[3]) * bin_w + (as_float(r[1]) + c(0.5)) * bin_w / c(static_cast<double>(S));
    Expr outside = te::Or(te::Or(te::Lt(y, c(-1)), te::Gt(y, c(static_cast<double>(H)))),
                          te::Or(te::Lt(xx, c(-1)), te::Gt(xx, c(static_cast<double>(W)))));
    // Per axis: the low and high pixel and the weight of the high one. At or past the last
    // pixel both are the last pixel.
    auto axis = [&](const Expr& v, int64_t n) {
      Expr at = te::Max(v, c(0));
      Expr low = te::Min(Floor(at), c(static_cast<double>(n - 1)));
      Expr frac = te::Select(te::Ge(Floor(at), c(static_cast<double>(n - 1))), c(0), at - low);
      Expr lo = Clamp(te::Cast(te::kIndexType, low), 0, n - 1);
      return std::tuple{lo, Clamp(lo + Expr(int64_t{1}), 0, n - 1), frac};
    };
    auto [y0, y1, ly] = axis(y, H);
    auto [x0, x1, lx] = axis(xx, W);
    Expr batch = Clamp(te::Cast(te::kIndexType, batch_indices({roi})), 0, N - 1);
    auto at = [&](const Expr& row, const Expr& col) { return x({batch, i[1], row, col}); };
    Expr hy = c(1) - ly, hx = c(1) - lx;
    Expr t1 = hy * hx * at(y0, x0), t2 = hy * lx * at(y0, x1), t3 = ly * hx * at(y1, x0), t4 = ly * lx * at(y1, x1);
    Expr value = p.max_mode ? te::Max(te::Max(te::Max(t1, t2), t3), t4) : t1 + t2 + t3 + t4;
    return te::Select(outside, c(0), value);
  };
  if (p.max_mode) return b.Reduce(std::move(name), te::ReduceKind::kMax, out_shape, {S, S}, sample);
  Tensor sum = b.Reduce(name + ".sum", te::ReduceKind::kSum, out_shape, {S, S}, sample);
  return b.Compute(std::move(name), out_shape,
                   [&](const Axes& i) { return sum(i) * c(1.0 / static_cast<double>(S * S)); });
}

}  // namespace tunefarm::ops
