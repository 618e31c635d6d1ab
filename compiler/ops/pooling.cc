#include "compiler/ops/pooling.h"

#include <limits>

#include "compiler/common/check.h"
#include "compiler/ops/conv2d.h"

namespace tunefarm::ops {

using te::Expr;

Tensor Pool2dNchw(DagBuilder& b, const Tensor& input, const Pool2dParams& p, std::string name) {
  TF_CHECK(input.shape.size() == 4, "pool2d takes an NCHW tensor");
  int64_t h = input.shape[2], w = input.shape[3];
  int64_t oh = (h + p.padding[0] + p.padding[2] - p.kernel[0]) / p.stride[0] + 1;
  int64_t ow = (w + p.padding[1] + p.padding[3] - p.kernel[1]) / p.stride[1] + 1;
  bool padded = p.padding[0] || p.padding[1] || p.padding[2] || p.padding[3];
  bool is_max = p.kind == PoolKind::kMax;
  double pad_value = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
  Tensor src = padded ? Pad2d(b, input, p.padding, pad_value, name + ".pad") : input;
  auto window = [&](const DagBuilder::Axes& i, const DagBuilder::Axes& r) {
    return src(i[0], i[1], i[2] * p.stride[0] + r[0], i[3] * p.stride[1] + r[1]);
  };
  std::vector<int64_t> shape = {input.shape[0], input.shape[1], oh, ow};
  std::vector<int64_t> kernel = {p.kernel[0], p.kernel[1]};
  if (is_max) return b.Reduce(std::move(name), te::ReduceKind::kMax, shape, kernel, window);
  auto sum = b.Reduce(name + ".sum", te::ReduceKind::kSum, shape, kernel, window);
  return b.Compute(std::move(name), shape, [&](const DagBuilder::Axes& i) {
    if (p.count_include_pad || !padded) return sum(i) * te::Const(input.dtype, 1.0 / (p.kernel[0] * p.kernel[1]));
    // Count only the window points inside the input.
    auto count_1d = [&](const Expr& o, int64_t stride, int64_t pad_lo, int64_t k, int64_t size) {
      Expr lo = te::Max(o * stride - pad_lo, 0), hi = te::Min(o * stride - pad_lo + k, size);
      return hi - lo;
    };
    Expr count = count_1d(i[2], p.stride[0], p.padding[0], p.kernel[0], h) *
                 count_1d(i[3], p.stride[1], p.padding[1], p.kernel[1], w);
    return sum(i) / te::Cast(input.dtype, count);
  });
}

}  // namespace tunefarm::ops
