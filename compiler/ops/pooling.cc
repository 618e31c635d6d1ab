#include "compiler/ops/pooling.h"

#include <limits>

#include "compiler/common/strings.h"
#include "compiler/ops/pad.h"
#include "compiler/ops/reduce.h"

namespace tunefarm::ops {
namespace {

// One spatial axis of a pooling window.
struct WindowAxis {
  int64_t size, kernel, stride, dilation, pad_begin, pad_end;
  int64_t out = 0;
  int64_t padded_end = 0;  // end of the last window, counted from -pad_begin

  // Window points of output `o` inside [lo, hi) (input coordinates): j in [0, kernel) with
  // lo <= start + j * dilation < hi.
  Expr Count(const Expr& o, int64_t lo, int64_t hi) const {
    Expr start = o * stride - pad_begin;
    auto first_j_at_or_after = [&](int64_t bound) {  // ceil((bound - start) / dilation), clamped
      Expr j = (Expr(bound) - start + (dilation - 1)) / dilation;
      return Clamp(j, 0, kernel);
    };
    return first_j_at_or_after(hi) - first_j_at_or_after(lo);
  }
};

double LowestValue(DType t) {
  return te::IsFloat(t) ? -std::numeric_limits<double>::infinity() : static_cast<double>(Lowest(t)->int_value);
}

}  // namespace

absl::StatusOr<Tensor> Pool(DagBuilder& b, const Tensor& x, const PoolParams& p, std::string name) {
  const bool is_max = p.kind == PoolKind::kMax;
  const std::string_view op = is_max ? "max_pool" : "avg_pool";
  if (auto s = CheckShape(op, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(op, "input", x.dtype, is_max ? DTypeSet::kNumeric : DTypeSet::kFloat); !s.ok()) return s;
  const size_t rank = x.shape.size();
  if (rank < 3) return OpError(op, StrCat("input ", ShapeString(x.shape), " needs [N, C] and a spatial axis"));
  const size_t sd = rank - 2;
  auto sized = [&](const std::vector<int64_t>& v, size_t n, std::string_view what) -> absl::Status {
    if (v.empty() || v.size() == n) return absl::OkStatus();
    return OpError(op, StrCat(what, " has ", v.size(), " values, expected ", n));
  };
  if (p.kernel.size() != sd) return OpError(op, StrCat("kernel has ", p.kernel.size(), " values, expected ", sd));
  if (auto s = sized(p.stride, sd, "stride"); !s.ok()) return s;
  if (auto s = sized(p.dilation, sd, "dilation"); !s.ok()) return s;
  if (auto s = sized(p.padding, 2 * sd, "padding"); !s.ok()) return s;

  std::vector<WindowAxis> win(sd);
  Shape out_shape = {x.shape[0], x.shape[1]};
  std::vector<int64_t> pads(2 * rank, 0);
  bool needs_pad = false, overhang = false, any_padding = false;
  for (size_t d = 0; d < sd; ++d) {
    WindowAxis& w = win[d];
    w.size = x.shape[2 + d];
    w.kernel = p.kernel[d];
    w.stride = p.stride.empty() ? 1 : p.stride[d];
    w.dilation = p.dilation.empty() ? 1 : p.dilation[d];
    w.pad_begin = p.padding.empty() ? 0 : p.padding[d];
    w.pad_end = p.padding.empty() ? 0 : p.padding[sd + d];
    if (w.kernel < 1 || w.stride < 1 || w.dilation < 1) return OpError(op, "kernel, stride and dilation must be >= 1");
    if (w.pad_begin < 0 || w.pad_end < 0) return OpError(op, "padding must be >= 0");
    // A window wholly inside the padding would have nothing to pool.
    const int64_t extent = w.dilation * (w.kernel - 1) + 1;
    if (w.pad_begin >= extent || w.pad_end >= extent)
      return OpError(op, StrCat("padding of spatial axis ", d, " must be smaller than the window (", extent, ")"));
    int64_t span = w.size + w.pad_begin + w.pad_end - w.dilation * (w.kernel - 1) - 1;
    if (span < 0) return OpError(op, StrCat("the window of spatial axis ", d, " is larger than the padded input"));
    w.out = p.ceil_mode ? (span + w.stride - 1) / w.stride + 1 : span / w.stride + 1;
    if (p.ceil_mode && (w.out - 1) * w.stride >= w.size + w.pad_begin) --w.out;
    w.padded_end = (w.out - 1) * w.stride + w.dilation * (w.kernel - 1) + 1;
    int64_t end_pad = w.padded_end - w.pad_begin - w.size;  // < 0: the tail is never read
    pads[2 + d] = w.pad_begin;
    pads[rank + 2 + d] = end_pad;
    needs_pad |= w.pad_begin > 0 || end_pad > 0;
    overhang |= w.padded_end > w.pad_begin + w.size + w.pad_end;
    any_padding |= w.pad_begin > 0 || w.pad_end > 0;
    out_shape.push_back(w.out);
  }

  Tensor src = x;
  if (needs_pad) {
    auto padded = Pad(b, x, PadParams{PadMode::kConstant, pads, is_max ? LowestValue(x.dtype) : 0.0}, name + ".pad");
    if (!padded.ok()) return padded.status();
    src = *padded;
  }
  Shape kernel(p.kernel.begin(), p.kernel.end());
  auto window = [&](const Axes& i, const Axes& r) {
    std::vector<Expr> index = {i[0], i[1]};
    for (size_t d = 0; d < sd; ++d) index.push_back(i[2 + d] * win[d].stride + r[d] * win[d].dilation);
    return src(index);
  };
  if (is_max) return b.Reduce(std::move(name), te::ReduceKind::kMax, out_shape, kernel, window);

  Tensor sum = b.Reduce(name + ".sum", te::ReduceKind::kSum, out_shape, kernel, window);
  const bool constant_divisor = p.count_include_pad ? !overhang : !overhang && !any_padding;
  return b.Compute(std::move(name), out_shape, [&](const Axes& i) {
    if (constant_divisor) return sum(i) * te::Const(x.dtype, 1.0 / static_cast<double>(NumElements(kernel)));
    Expr count;
    for (size_t d = 0; d < sd; ++d) {
      const WindowAxis& w = win[d];
      Expr c = p.count_include_pad ? w.Count(i[2 + d], -w.pad_begin, w.size + w.pad_end) : w.Count(i[2 + d], 0, w.size);
      count = count.defined() ? count * c : c;
    }
    return sum(i) / te::Cast(x.dtype, count);
  });
}

absl::StatusOr<Tensor> GlobalPool(DagBuilder& b, const Tensor& x, PoolKind kind, std::string name) {
  const bool is_max = kind == PoolKind::kMax;
  const std::string_view op = is_max ? "global_max_pool" : "global_avg_pool";
  if (auto s = CheckDType(op, "input", x.dtype, is_max ? DTypeSet::kNumeric : DTypeSet::kFloat); !s.ok()) return s;
  if (x.shape.size() < 3) return OpError(op, StrCat("input ", ShapeString(x.shape), " needs [N, C] and a spatial axis"));
  ReduceParams r{is_max ? ReduceOp::kMax : ReduceOp::kMean, {}, /*keepdims=*/true};
  for (size_t d = 2; d < x.shape.size(); ++d) r.axes.push_back(static_cast<int64_t>(d));
  return Reduce(b, x, r, std::move(name));
}

Tensor Pool2dNchw(DagBuilder& b, const Tensor& input, const Pool2dParams& p, std::string name) {
  PoolParams q;
  q.kind = p.kind;
  q.kernel = {p.kernel[0], p.kernel[1]};
  q.stride = {p.stride[0], p.stride[1]};
  q.padding = {p.padding[0], p.padding[1], p.padding[2], p.padding[3]};
  q.count_include_pad = p.count_include_pad;
  return OrDie(Pool(b, input, q, std::move(name)));
}

}  // namespace tunefarm::ops
