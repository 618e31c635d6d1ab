#include "compiler/ops/normalization.h"

#include <utility>

#include "common/strings.h"

namespace tunefarm::ops {
namespace {

// Indexing between a tensor and its reduction over axes [first, first + count).
struct ReducedAxes {
  int first = 0, count = 0;

  Shape Outer(const Shape& shape) const {
    Shape out(shape.begin(), shape.begin() + first);
    out.insert(out.end(), shape.begin() + first + count, shape.end());
    return out;
  }
  Shape Inner(const Shape& shape) const { return Shape(shape.begin() + first, shape.begin() + first + count); }
  // Full index from an outer index and the reduce axes.
  std::vector<Expr> Full(const Axes& outer, const Axes& reduce) const {
    std::vector<Expr> all(outer.begin(), outer.begin() + first);
    all.insert(all.end(), reduce.begin(), reduce.end());
    all.insert(all.end(), outer.begin() + first, outer.end());
    return all;
  }
  // Outer index of a full index.
  std::vector<Expr> OuterOf(const Axes& full) const {
    std::vector<Expr> out(full.begin(), full.begin() + first);
    out.insert(out.end(), full.begin() + first + count, full.end());
    return out;
  }
  std::vector<Expr> InnerOf(const Axes& full) const {
    return std::vector<Expr>(full.begin() + first, full.begin() + first + count);
  }
};

// Stages .mean and .var (two-pass variance) of x over the axes `ra` reduces, shaped ra.Outer.
std::pair<Tensor, Tensor> MeanAndVariance(DagBuilder& b, const Tensor& x, const ReducedAxes& ra,
                                          const std::string& name) {
  const Shape outer = ra.Outer(x.shape), inner = ra.Inner(x.shape);
  Expr inv_n = te::Const(x.dtype, 1.0 / static_cast<double>(NumElements(inner)));
  Tensor mean = b.Reduce(name + ".mean", te::ReduceKind::kSum, outer, inner,
                         [&](const Axes& i, const Axes& r) { return x(ra.Full(i, r)) * inv_n; });
  Tensor var = b.Reduce(name + ".var", te::ReduceKind::kSum, outer, inner, [&](const Axes& i, const Axes& r) {
    Expr d = x(ra.Full(i, r)) - mean(i);
    return d * d * inv_n;
  });
  return {mean, var};
}

absl::Status CheckFloatInput(std::string_view op, const Tensor& x) {
  if (auto s = CheckShape(op, "input", x.shape); !s.ok()) return s;
  return CheckDType(op, "input", x.dtype, DTypeSet::kFloat);
}

// The .max and .sum-of-exp stages shared by softmax and log-softmax.
struct SoftmaxParts {
  ReducedAxes axes;
  Tensor max, exp, sum;
};

absl::StatusOr<SoftmaxParts> SoftmaxStages(DagBuilder& b, const Tensor& x, const SoftmaxParams& p,
                                           std::string_view op, const std::string& name, bool keep_exp) {
  if (auto s = CheckFloatInput(op, x); !s.ok()) return s;
  auto axis = NormalizeAxis(op, p.axis, static_cast<int>(x.shape.size()));
  if (!axis.ok()) return axis.status();
  SoftmaxParts parts;
  parts.axes = ReducedAxes{*axis, 1};
  const ReducedAxes& ra = parts.axes;
  Shape outer = ra.Outer(x.shape), inner = ra.Inner(x.shape);
  parts.max = b.Reduce(name + ".max", te::ReduceKind::kMax, outer, inner,
                       [&](const Axes& i, const Axes& r) { return x(ra.Full(i, r)); });
  if (keep_exp) {
    parts.exp = b.Compute(name + ".exp", x.shape,
                          [&](const Axes& i) { return te::Exp(x(i) - parts.max(ra.OuterOf(i))); });
    parts.sum = b.Reduce(name + ".sum", te::ReduceKind::kSum, outer, inner,
                         [&](const Axes& i, const Axes& r) { return parts.exp(ra.Full(i, r)); });
  } else {
    parts.sum = b.Reduce(name + ".sum", te::ReduceKind::kSum, outer, inner,
                         [&](const Axes& i, const Axes& r) { return te::Exp(x(ra.Full(i, r)) - parts.max(i)); });
  }
  return parts;
}

}  // namespace

absl::StatusOr<Tensor> Softmax(DagBuilder& b, const Tensor& x, const SoftmaxParams& p, std::string name) {
  auto parts = SoftmaxStages(b, x, p, "softmax", name, /*keep_exp=*/true);
  if (!parts.ok()) return parts.status();
  return b.Compute(std::move(name), x.shape,
                   [&](const Axes& i) { return parts->exp(i) / parts->sum(parts->axes.OuterOf(i)); });
}

absl::StatusOr<Tensor> LogSoftmax(DagBuilder& b, const Tensor& x, const SoftmaxParams& p, std::string name) {
  auto parts = SoftmaxStages(b, x, p, "log_softmax", name, /*keep_exp=*/false);
  if (!parts.ok()) return parts.status();
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    std::vector<Expr> outer = parts->axes.OuterOf(i);
    return x(i) - parts->max(outer) - te::Log(parts->sum(outer));
  });
}

absl::StatusOr<Tensor> LayerNorm(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                 const LayerNormParams& p, std::string name) {
  constexpr std::string_view kOp = "layer_norm";
  if (auto s = CheckFloatInput(kOp, x); !s.ok()) return s;
  const int rank = static_cast<int>(x.shape.size());
  auto axis = NormalizeAxis(kOp, p.axis, rank);
  if (!axis.ok()) return axis.status();
  const ReducedAxes ra{*axis, rank - *axis};
  const Shape inner = ra.Inner(x.shape);
  for (const auto& [t, what] : {std::pair{&gamma, "gamma"}, {&beta, "beta"}}) {
    if (t->shape != inner) return OpError(kOp, StrCat(what, " has shape ", ShapeString(t->shape), ", expected ", ShapeString(inner)));
    if (t->dtype != x.dtype) return OpError(kOp, StrCat(what, " and the input have different dtypes"));
  }
  const auto [mean, var] = MeanAndVariance(b, x, ra, name);
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    std::vector<Expr> o = ra.OuterOf(i), in = ra.InnerOf(i);
    Expr scale = te::Rsqrt(var(o) + te::Const(x.dtype, p.epsilon));
    return (x(i) - mean(o)) * scale * gamma(in) + beta(in);
  });
}

absl::StatusOr<Tensor> InstanceNorm(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                    double epsilon, std::string name) {
  constexpr std::string_view kOp = "instance_norm";
  if (auto s = CheckFloatInput(kOp, x); !s.ok()) return s;
  const int rank = static_cast<int>(x.shape.size());
  if (rank < 3) return OpError(kOp, StrCat("input ", ShapeString(x.shape), " has no spatial axes"));
  for (const auto& [t, what] : {std::pair{&gamma, "gamma"}, {&beta, "beta"}}) {
    if (t->shape != Shape{x.shape[1]})
      return OpError(kOp, StrCat(what, " has shape ", ShapeString(t->shape), ", expected [", x.shape[1], "]"));
    if (t->dtype != x.dtype) return OpError(kOp, StrCat(what, " and the input have different dtypes"));
  }
  const ReducedAxes ra{2, rank - 2};
  const auto [mean, var] = MeanAndVariance(b, x, ra, name);
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    std::vector<Expr> o = ra.OuterOf(i);
    Expr scale = te::Rsqrt(var(o) + te::Const(x.dtype, epsilon));
    return (x(i) - mean(o)) * scale * gamma({i[1]}) + beta({i[1]});
  });
}

absl::StatusOr<Tensor> LocalResponseNorm(DagBuilder& b, const Tensor& x, const LrnParams& p, std::string name) {
  constexpr std::string_view kOp = "lrn";
  if (auto s = CheckFloatInput(kOp, x); !s.ok()) return s;
  if (x.shape.size() < 3) return OpError(kOp, StrCat("input ", ShapeString(x.shape), " has no spatial axes"));
  if (p.size < 1) return OpError(kOp, StrCat("size ", p.size, " is not positive"));
  const int64_t channels = x.shape[1], before = (p.size - 1) / 2;
  // A window wider than the channels reads each channel at most once: reduce over the channels
  // then (so a huge size costs C, not size, per element).
  const bool wide = p.size > channels;
  Tensor sqsum = b.Reduce(name + ".sqsum", te::ReduceKind::kSum, x.shape, {wide ? channels : p.size},
                          [&](const Axes& i, const Axes& r) {
    if (wide) {
      Expr offset = r[0] - i[1] + before;  // the window position of channel r
      Axes at = i;
      at[1] = r[0];
      Expr v = x(at);
      return te::Select(InRange(offset, 0, p.size), v * v, te::Const(x.dtype, 0));
    }
    Expr c = i[1] + r[0] - before;
    Axes at = i;
    at[1] = Clamp(c, 0, channels - 1);
    Expr v = x(at);
    return te::Select(InRange(c, 0, channels), v * v, te::Const(x.dtype, 0));
  });
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    Expr base = te::Const(x.dtype, p.bias) + te::Const(x.dtype, p.alpha / static_cast<double>(p.size)) * sqsum(i);
    return x(i) / te::Pow(base, te::Const(x.dtype, p.beta));
  });
}

absl::StatusOr<Tensor> BatchNormInference(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                          const Tensor& mean, const Tensor& var, const BatchNormParams& p,
                                          std::string name) {
  constexpr std::string_view kOp = "batch_norm";
  if (auto s = CheckFloatInput(kOp, x); !s.ok()) return s;
  if (x.shape.size() < 2) return OpError(kOp, StrCat("input ", ShapeString(x.shape), " has no channel axis"));
  const int64_t c = x.shape[1];
  for (const auto& [t, what] : {std::pair{&gamma, "gamma"}, {&beta, "beta"}, {&mean, "mean"}, {&var, "var"}}) {
    if (t->shape != Shape{c}) return OpError(kOp, StrCat(what, " has shape ", ShapeString(t->shape), ", expected [", c, "]"));
    if (t->dtype != x.dtype) return OpError(kOp, StrCat(what, " and the input have different dtypes"));
  }
  auto scale = b.Compute(name + ".scale", {c}, [&](const Axes& i) {
    return gamma(i) * te::Rsqrt(var(i) + te::Const(x.dtype, p.epsilon));
  });
  return b.Compute(std::move(name), x.shape,
                   [&](const Axes& i) { return (x(i) - mean(i[1])) * scale(i[1]) + beta(i[1]); });
}

Tensor Softmax(DagBuilder& b, const Tensor& x, std::string name) {
  return OrDie(Softmax(b, x, SoftmaxParams{}, std::move(name)));
}

Tensor LayerNorm(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps, std::string name) {
  return OrDie(LayerNorm(b, x, gamma, beta, LayerNormParams{-1, eps}, std::move(name)));
}

}  // namespace tunefarm::ops
