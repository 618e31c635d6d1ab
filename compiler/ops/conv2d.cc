#include "compiler/ops/conv2d.h"

#include "compiler/common/check.h"

namespace tunefarm::ops {

using te::Expr;

Tensor Pad2d(DagBuilder& b, const Tensor& in, const std::array<int64_t, 4>& pad, double value, std::string name) {
  TF_CHECK(in.shape.size() == 4, "Pad2d takes an NCHW tensor");
  int64_t h = in.shape[2], w = in.shape[3];
  std::vector<int64_t> shape = {in.shape[0], in.shape[1], h + pad[0] + pad[2], w + pad[1] + pad[3]};
  return b.Compute(std::move(name), shape, [&](const DagBuilder::Axes& i) {
    Expr y = i[2] - pad[0], x = i[3] - pad[1];
    Expr inside = te::And(te::And(te::Ge(y, 0), te::Lt(y, h)), te::And(te::Ge(x, 0), te::Lt(x, w)));
    // Select evaluates both arms: clamp the read so it stays inside the input.
    Expr read = in(i[0], i[1], te::Min(te::Max(y, 0), h - 1), te::Min(te::Max(x, 0), w - 1));
    return te::Select(inside, read, te::Const(in.dtype, value));
  });
}

Tensor Conv2dNchw(DagBuilder& b, const Tensor& input, const Tensor& weight, const Conv2dParams& p, std::string name) {
  TF_CHECK(input.shape.size() == 4 && weight.shape.size() == 4, "conv2d operands must be 4-D");
  int64_t n = input.shape[0], c = input.shape[1], h = input.shape[2], w = input.shape[3];
  int64_t k = weight.shape[0], cg = weight.shape[1], r = weight.shape[2], s = weight.shape[3];
  TF_CHECK(c % p.groups == 0 && k % p.groups == 0 && cg == c / p.groups, "conv2d group shapes");
  int64_t oh = (h + p.padding[0] + p.padding[2] - p.dilation[0] * (r - 1) - 1) / p.stride[0] + 1;
  int64_t ow = (w + p.padding[1] + p.padding[3] - p.dilation[1] * (s - 1) - 1) / p.stride[1] + 1;
  TF_CHECK(oh > 0 && ow > 0, "conv2d output would be empty");
  bool padded = p.padding[0] || p.padding[1] || p.padding[2] || p.padding[3];
  Tensor src = padded ? Pad2d(b, input, p.padding, 0.0, name + ".pad") : input;
  int64_t k_per_group = k / p.groups;
  return b.Reduce(std::move(name), te::ReduceKind::kSum, {n, k, oh, ow}, {cg, r, s},
                  [&](const DagBuilder::Axes& i, const DagBuilder::Axes& rd) {
                    Expr channel = p.groups == 1 ? rd[0] : i[1] / k_per_group * cg + rd[0];
                    Expr y = i[2] * p.stride[0] + rd[1] * p.dilation[0];
                    Expr x = i[3] * p.stride[1] + rd[2] * p.dilation[1];
                    return src(i[0], channel, y, x) * weight(i[1], rd[0], rd[1], rd[2]);
                  });
}

}  // namespace tunefarm::ops
