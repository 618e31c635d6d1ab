#include "compiler/ops/conv_transpose.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> ConvTranspose(DagBuilder& b, const Tensor& input, const Tensor& weight,
                                     const ConvTransposeParams& p, std::string name) {
  constexpr std::string_view kOp = "conv_transpose";
  if (auto s = CheckShape(kOp, "input", input.shape); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "weight", weight.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "input", input.dtype, DTypeSet::kFloat); !s.ok()) return s;
  if (weight.dtype != input.dtype) return OpError(kOp, "input and weight have different dtypes");
  const size_t rank = input.shape.size();
  if (rank < 3 || weight.shape.size() != rank)
    return OpError(kOp, StrCat("input ", ShapeString(input.shape), " and weight ", ShapeString(weight.shape),
                               " must be [N, C, D...] and [C, K/groups, R...] of the same rank >= 3"));
  const size_t sd = rank - 2;
  auto get = [&](const std::vector<int64_t>& v, size_t i, int64_t fallback) { return v.empty() ? fallback : v[i]; };
  for (const auto& [v, n, what] : {std::tuple{&p.stride, sd, "stride"}, {&p.dilation, sd, "dilation"},
                                   {&p.output_padding, sd, "output_padding"}, {&p.padding, 2 * sd, "padding"}})
    if (!v->empty() && v->size() != n) return OpError(kOp, StrCat(what, " has ", v->size(), " values, expected ", n));
  const int64_t n = input.shape[0], c = input.shape[1], kg = weight.shape[1];
  if (p.groups < 1 || c % p.groups != 0 || weight.shape[0] != c)
    return OpError(kOp, StrCat("input ", ShapeString(input.shape), " and weight ", ShapeString(weight.shape),
                               " do not fit groups = ", p.groups, " (need weight [C, K/groups, R...], C divisible by groups)"));
  const int64_t k = kg * p.groups, cg = c / p.groups;

  // Per spatial axis: stride, dilation, kernel, the low pad of the dilated input, and extents.
  std::vector<int64_t> stride(sd), dilation(sd), kernel(sd), low(sd);
  Shape spread_shape = {n, c}, out_shape = {n, k};
  for (size_t d = 0; d < sd; ++d) {
    stride[d] = get(p.stride, d, 1);
    dilation[d] = get(p.dilation, d, 1);
    kernel[d] = weight.shape[2 + d];
    int64_t pb = get(p.padding, d, 0), pe = get(p.padding, sd + d, 0), op = get(p.output_padding, d, 0);
    if (stride[d] < 1 || dilation[d] < 1) return OpError(kOp, "stride and dilation must be >= 1");
    if (pb < 0 || pe < 0 || op < 0) return OpError(kOp, "padding and output_padding must be >= 0");
    const int64_t size = input.shape[2 + d], reach = dilation[d] * (kernel[d] - 1);
    int64_t out = (size - 1) * stride[d] - pb - pe + reach + op + 1;
    if (out < 1) return OpError(kOp, StrCat("spatial axis ", d, " would have output extent ", out));
    low[d] = reach - pb;
    spread_shape.push_back(out + reach);
    out_shape.push_back(out);
  }
  if (auto s = CheckShape(kOp, "output", out_shape); !s.ok()) return s;

  // spread[n, c, q...] = input[n, c, (q - low) / stride...] where q - low lands on a multiple of
  // the stride inside the input, else 0.
  Tensor spread = b.Compute(name + ".dilate_pad", spread_shape, [&](const Axes& i) {
    std::vector<Expr> index = {i[0], i[1]}, conds;
    for (size_t d = 0; d < sd; ++d) {
      const int64_t size = input.shape[2 + d];
      Expr q = i[2 + d] - low[d];
      if (stride[d] > 1) conds.push_back(te::Eq(q % stride[d], Expr(0)));
      Expr src = stride[d] > 1 ? q / stride[d] : q;
      conds.push_back(InRange(src, 0, size));
      index.push_back(Clamp(src, 0, size - 1));  // select evaluates both arms
    }
    return te::Select(AllOf(conds), input(index), te::Const(input.dtype, 0));
  });
  std::vector<int64_t> reduce_extents = {cg};
  reduce_extents.insert(reduce_extents.end(), kernel.begin(), kernel.end());
  return b.Reduce(std::move(name), te::ReduceKind::kSum, out_shape, reduce_extents, [&](const Axes& i, const Axes& r) {
    Expr channel = p.groups == 1 ? r[0] : i[1] / kg * cg + r[0];
    std::vector<Expr> src = {i[0], channel}, w = {channel, p.groups == 1 ? i[1] : i[1] % kg};
    for (size_t d = 0; d < sd; ++d) {
      src.push_back(i[2 + d] + r[1 + d] * dilation[d]);
      w.push_back(kernel[d] - 1 - r[1 + d]);  // flipped kernel
    }
    return spread(src) * weight(w);
  });
}

}  // namespace tunefarm::ops
