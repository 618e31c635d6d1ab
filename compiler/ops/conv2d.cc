#include "compiler/ops/conv2d.h"

#include "common/check.h"
#include "common/strings.h"
#include "compiler/ops/pad.h"

namespace tunefarm::ops {

int64_t ConvOutputExtent(int64_t in, int64_t pad_begin, int64_t pad_end, int64_t kernel, int64_t stride,
                         int64_t dilation) {
  int64_t span = in + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

absl::StatusOr<Tensor> Conv2d(DagBuilder& b, const Tensor& input, const Tensor& weight, const Conv2dParams& p,
                              std::string name) {
  constexpr std::string_view kOp = "conv2d";
  if (auto s = CheckRank(kOp, "input", input.shape, 4); !s.ok()) return s;
  if (auto s = CheckRank(kOp, "weight", weight.shape, 4); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "input", input.shape); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "weight", weight.shape); !s.ok()) return s;
  if (input.dtype != DType::kInt32)  // int32: exact integer convolution (wraps as int32 does)
    if (auto s = CheckDType(kOp, "input", input.dtype, DTypeSet::kFloat); !s.ok()) return s;
  if (weight.dtype != input.dtype) return OpError(kOp, "input and weight have different dtypes");
  int64_t n = input.shape[0], c = input.shape[1];
  int64_t k = weight.shape[0], cg = weight.shape[1], r = weight.shape[2], s = weight.shape[3];
  for (int d = 0; d < 2; ++d)
    if (p.stride[d] < 1 || p.dilation[d] < 1) return OpError(kOp, "stride and dilation must be >= 1");
  for (int64_t pad : p.padding)
    if (pad < 0) return OpError(kOp, "padding must be >= 0");
  if (p.groups < 1 || c % p.groups != 0 || k % p.groups != 0 || cg != c / p.groups)
    return OpError(kOp, StrCat("input ", ShapeString(input.shape), " and weight ", ShapeString(weight.shape),
                               " do not fit groups = ", p.groups, " (need C and K divisible by groups and weight [K, C/groups, R, S])"));
  int64_t oh = ConvOutputExtent(input.shape[2], p.padding[0], p.padding[2], r, p.stride[0], p.dilation[0]);
  int64_t ow = ConvOutputExtent(input.shape[3], p.padding[1], p.padding[3], s, p.stride[1], p.dilation[1]);
  if (oh < 1 || ow < 1) return OpError(kOp, "the (dilated) kernel is larger than the padded input");
  bool padded = p.padding[0] || p.padding[1] || p.padding[2] || p.padding[3];
  Tensor src = padded ? Pad2d(b, input, p.padding, 0.0, name + ".pad") : input;
  int64_t k_per_group = k / p.groups;
  return b.Reduce(std::move(name), te::ReduceKind::kSum, {n, k, oh, ow}, {cg, r, s},
                  [&](const Axes& i, const Axes& rd) {
                    Expr channel = p.groups == 1 ? rd[0] : i[1] / k_per_group * cg + rd[0];
                    Expr y = i[2] * p.stride[0] + rd[1] * p.dilation[0];
                    Expr x = i[3] * p.stride[1] + rd[2] * p.dilation[1];
                    return src(i[0], channel, y, x) * weight(i[1], rd[0], rd[1], rd[2]);
                  });
}

Tensor Conv2dNchw(DagBuilder& b, const Tensor& input, const Tensor& weight, const Conv2dParams& p, std::string name) {
  return OrDie(Conv2d(b, input, weight, p, std::move(name)));
}

Tensor Pad2d(DagBuilder& b, const Tensor& input, const std::array<int64_t, 4>& padding, double value,
             std::string name) {
  TF_CHECK(input.shape.size() == 4, "Pad2d takes an NCHW tensor");
  PadParams p{PadMode::kConstant, {0, 0, padding[0], padding[1], 0, 0, padding[2], padding[3]}, value};
  return OrDie(Pad(b, input, p, std::move(name)));
}

}  // namespace tunefarm::ops
