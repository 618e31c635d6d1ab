#include "compiler/ops/conv2d_nchwc.h"

#include "common/strings.h"
#include "compiler/ops/pad.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> Conv2dNchwc(DagBuilder& b, const Tensor& data, const Tensor& weight, const Conv2dParams& p,
                                   std::string name) {
  constexpr std::string_view kOp = "conv2d_nchwc";
  if (auto s = CheckRank(kOp, "data", data.shape, 5); !s.ok()) return s;
  if (auto s = CheckRank(kOp, "weight", weight.shape, 6); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "data", data.shape); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "weight", weight.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "data", data.dtype, DTypeSet::kFloat); !s.ok()) return s;
  if (weight.dtype != data.dtype) return OpError(kOp, "data and weight have different dtypes");
  for (int d = 0; d < 2; ++d)
    if (p.stride[d] < 1 || p.dilation[d] < 1) return OpError(kOp, "stride and dilation must be >= 1");
  for (int64_t pad : p.padding)
    if (pad < 0) return OpError(kOp, "padding must be >= 0");
  const int64_t n = data.shape[0], x = data.shape[4], c = data.shape[1] * x;
  const int64_t y = weight.shape[5], k = weight.shape[0] * y;
  const int64_t cgw = weight.shape[1], r = weight.shape[2], s = weight.shape[3], xi = weight.shape[4];
  if (p.groups < 1 || c % p.groups != 0 || k % p.groups != 0 || cgw * xi != c / p.groups)
    return OpError(kOp, StrCat("data ", ShapeString(data.shape), " and weight ", ShapeString(weight.shape),
                               " do not fit groups = ", p.groups, ": need weight [K/y, C/groups/xi, R, S, xi, y]"));
  const int64_t oh = ConvOutputExtent(data.shape[2], p.padding[0], p.padding[2], r, p.stride[0], p.dilation[0]);
  const int64_t ow = ConvOutputExtent(data.shape[3], p.padding[1], p.padding[3], s, p.stride[1], p.dilation[1]);
  if (oh < 1 || ow < 1) return OpError(kOp, "the (dilated) kernel is larger than the padded input");

  Tensor src = data;
  if (p.padding[0] || p.padding[1] || p.padding[2] || p.padding[3]) {
    PadParams pad{PadMode::kConstant, {0, 0, p.padding[0], p.padding[1], 0, 0, 0, p.padding[2], p.padding[3], 0}, 0};
    auto padded = Pad(b, data, pad, name + ".pad");
    if (!padded.ok()) return padded.status();
    src = *padded;
  }
  const int64_t cg = c / p.groups, kg = k / p.groups;
  const bool depthwise = p.groups == c && p.groups == k && cgw == 1 && xi == 1 && x == y;
  return b.Reduce(std::move(name), te::ReduceKind::kSum, {n, weight.shape[0], oh, ow, y}, {cgw, r, s, xi},
                  [&](const Axes& i, const Axes& rd) {
                    Expr iy = i[2] * p.stride[0] + rd[1] * p.dilation[0];
                    Expr ix = i[3] * p.stride[1] + rd[2] * p.dilation[1];
                    Expr w = weight(i[1], rd[0], rd[1], rd[2], rd[3], i[4]);
                    if (p.groups == 1 && xi == x) return src(i[0], rd[0], iy, ix, rd[3]) * w;
                    // Depthwise with equal blocks: output lane i[4] reads the same input lane, so
                    // the read stays contiguous along the vector axis.
                    if (depthwise) return src(i[0], i[1], iy, ix, i[4]) * w;
                    // Input channel of this output channel's group, then its block and lane.
                    Expr group = (i[1] * y + i[4]) / kg;
                    Expr channel = group * cg + rd[0] * xi + rd[3];
                    return src(i[0], channel / x, iy, ix, channel % x) * w;
                  });
}

}  // namespace tunefarm::ops
