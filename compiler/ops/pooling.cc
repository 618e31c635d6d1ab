#include "compiler/ops/pooling.h"

#include <limits>

#include "common/strings.h"
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

  // Whether every window holds an input element; one that does not (dilation can step over a
  // small input) pools only padding.
  bool EveryWindowReadsInput() const {
    for (int64_t o = 0; o < out; ++o) {
      const int64_t start = o * stride - pad_begin;
      const int64_t j = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
      if (j >= kernel || start + j * dilation >= size) return false;
    }
    return true;
  }
};

double LowestValue(DType t) {
  return te::IsFloat(t) ? -std::numeric_limits<double>::infinity() : static_cast<double>(Lowest(t)->int_value);
}

// The checked geometry of a pool: one WindowAxis per spatial axis and the output shape.
struct PoolWindow {
  std::vector<WindowAxis> axes;
  Shape out_shape;
};

absl::StatusOr<PoolWindow> PlanWindow(std::string_view op, const Tensor& x, const PoolParams& p) {
  if (auto s = CheckShape(op, "input", x.shape); !s.ok()) return s;
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

  PoolWindow pw;
  pw.axes.resize(sd);
  pw.out_shape = {x.shape[0], x.shape[1]};
  for (size_t d = 0; d < sd; ++d) {
    WindowAxis& w = pw.axes[d];
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
    pw.out_shape.push_back(w.out);
  }
  return pw;
}

}  // namespace

absl::StatusOr<Tensor> Pool(DagBuilder& b, const Tensor& x, const PoolParams& p, std::string name) {
  const bool is_max = p.kind == PoolKind::kMax;
  const std::string_view op = is_max ? "max_pool" : "avg_pool";
  if (auto s = CheckDType(op, "input", x.dtype, is_max ? DTypeSet::kNumeric : DTypeSet::kFloat); !s.ok()) return s;
  auto planned = PlanWindow(op, x, p);
  if (!planned.ok()) return planned.status();
  const std::vector<WindowAxis>& win = planned->axes;
  const Shape& out_shape = planned->out_shape;
  const size_t rank = x.shape.size(), sd = rank - 2;
  std::vector<int64_t> pads(2 * rank, 0);
  bool needs_pad = false, overhang = false, any_padding = false;
  for (size_t d = 0; d < sd; ++d) {
    const WindowAxis& w = win[d];
    int64_t end_pad = w.padded_end - w.pad_begin - w.size;  // < 0: the tail is never read
    pads[2 + d] = w.pad_begin;
    pads[rank + 2 + d] = end_pad;
    needs_pad |= w.pad_begin > 0 || end_pad > 0;
    overhang |= w.padded_end > w.pad_begin + w.size + w.pad_end;
    any_padding |= w.pad_begin > 0 || w.pad_end > 0;
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

absl::StatusOr<Tensor> MaxPoolIndices(DagBuilder& b, const Tensor& x, const Tensor& y, const PoolParams& p,
                                      PoolIndexOrder order, std::string name) {
  const std::string_view op = "max_pool_indices";
  if (p.kind != PoolKind::kMax) return OpError(op, "needs a max pool");
  if (auto s = CheckDType(op, "input", x.dtype, DTypeSet::kNumeric); !s.ok()) return s;
  auto planned = PlanWindow(op, x, p);
  if (!planned.ok()) return planned.status();
  const std::vector<WindowAxis>& win = planned->axes;
  const Shape& out_shape = planned->out_shape;
  if (y.shape != out_shape || y.dtype != x.dtype)
    return OpError(op, StrCat("the pooled tensor is ", te::DTypeName(y.dtype), ShapeString(y.shape), ", expected ",
                              te::DTypeName(x.dtype), ShapeString(out_shape)));
  const size_t sd = win.size();
  for (size_t d = 0; d < sd; ++d)
    if (!win[d].EveryWindowReadsInput())
      return OpError(op, StrCat("a window of spatial axis ", d, " holds only padding, so it has no index"));

  // Row-major flat index of the first window point (in scan order, which is also row-major
  // index order) that is inside the input and holds the max. Every window holds one: y is the max
  // of its input elements and of padding that never exceeds them. When y is NaN (a NaN input),
  // the first NaN is taken.
  Shape kernel(p.kernel.begin(), p.kernel.end());
  const bool is_float = te::IsFloat(x.dtype);
  auto first_max = [&](const Axes& i, const Axes& r) {
    std::vector<Expr> read = {i[0], i[1]}, inside;
    Expr flat = i[0] * x.shape[1] + i[1];
    for (size_t d = 0; d < sd; ++d) {
      const WindowAxis& w = win[d];
      Expr pos = i[2 + d] * w.stride - w.pad_begin + r[d] * w.dilation;
      const bool leaves_input = w.pad_begin > 0 || w.padded_end > w.pad_begin + w.size;
      if (leaves_input) inside.push_back(InRange(pos, 0, w.size));
      read.push_back(leaves_input ? Clamp(pos, 0, w.size - 1) : pos);
      flat = flat * w.size + pos;
    }
    Expr value = x(read), top = y(i);
    Expr hit = te::Eq(value, top);
    if (is_float) hit = te::Or(hit, te::And(te::Ne(value, value), te::Ne(top, top)));
    if (!inside.empty()) hit = te::And(AllOf(inside), hit);
    return te::Select(hit, flat, Highest(DType::kInt64));
  };
  if (order == PoolIndexOrder::kRowMajor || sd == 1)
    return b.Reduce(std::move(name), te::ReduceKind::kMin, out_shape, kernel, first_max);

  // Column-major over the spatial axes (ONNX storage_order = 1): the first axis varies fastest.
  Tensor row_major = b.Reduce(name + ".row_major", te::ReduceKind::kMin, out_shape, kernel, first_max);
  return b.Compute(std::move(name), out_shape, [&](const Axes& i) {
    Expr rest = row_major(i), spatial = Expr(int64_t{0});
    std::vector<int64_t> column_stride(sd, 1);
    for (size_t d = 1; d < sd; ++d) column_stride[d] = column_stride[d - 1] * win[d - 1].size;
    for (size_t d = sd; d-- > 0;) {
      spatial = spatial + rest % win[d].size * column_stride[d];
      rest = rest / win[d].size;
    }
    return rest * (column_stride[sd - 1] * win[sd - 1].size) + spatial;  // rest is n * C + c
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

absl::StatusOr<Tensor> MaxUnpool(DagBuilder& b, const Tensor& x, const Tensor& indices, const UnpoolParams& p,
                                 std::string name) {
  constexpr std::string_view kOp = "max_unpool";
  if (auto s = CheckRank(kOp, "input", x.shape, 4); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "indices", indices.dtype, DTypeSet::kInt); !s.ok()) return s;
  if (indices.shape != x.shape) return OpError(kOp, "indices and input differ in shape");
  for (int d = 0; d < 2; ++d)
    if (p.kernel[d] < 1 || p.stride[d] < 1 || p.pad_begin[d] < 0 || p.unpooled[d] < 1 || p.output[d] < p.unpooled[d])
      return OpError(kOp, "kernel, strides and the unpooled extent must be positive, pads non-negative, the output no smaller");
  const int64_t H = x.shape[2], W = x.shape[3], OH = p.output[0], OW = p.output[1];
  const int64_t IH = p.unpooled[0], IW = p.unpooled[1];
  const std::array<int64_t, 2> in = {H, W};
  // Candidate pooled pixels per axis: floor((o + pad) / stride) - j, j < ceil(kernel / stride).
  const std::array<int64_t, 2> reach = {(p.kernel[0] + p.stride[0] - 1) / p.stride[0],
                                        (p.kernel[1] + p.stride[1] - 1) / p.stride[1]};
  Tensor writer = b.Reduce(name + ".writer", te::ReduceKind::kMax, {x.shape[0], x.shape[1], OH, OW}, {reach[0], reach[1]},
                           [&](const Axes& o, const Axes& j) {
                             std::vector<Expr> ok;
                             std::array<Expr, 2> at;
                             for (int d = 0; d < 2; ++d) {
                               Expr pooled = (o[2 + d] + p.pad_begin[d]) / p.stride[d] - j[d];
                               ok.push_back(InRange(pooled, 0, in[d]));
                               at[d] = Clamp(pooled, 0, in[d] - 1);
                             }
                             ok.push_back(te::Lt(o[2], Expr(IH)));
                             ok.push_back(te::Lt(o[3], Expr(IW)));
                             Expr flat = ((o[0] * x.shape[1] + o[1]) * IH + o[2]) * IW + o[3];
                             ok.push_back(te::Eq(te::Cast(te::kIndexType, indices(o[0], o[1], at[0], at[1])), flat));
                             return te::Select(AllOf(ok), at[0] * W + at[1], Expr(-1));
                           });
  return b.Compute(std::move(name), {x.shape[0], x.shape[1], OH, OW}, [&](const Axes& o) {
    Expr w = writer(o);
    Expr at = Clamp(w, 0, H * W - 1);
    return te::Select(te::Ge(w, Expr(0)), x(o[0], o[1], at / W, at % W), te::Const(x.dtype, 0));
  });
}

}  // namespace tunefarm::ops
