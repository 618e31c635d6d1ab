#include "compiler/ops/normalization.h"

#include "compiler/common/check.h"

namespace tunefarm::ops {
namespace {

using te::Expr;

std::vector<int64_t> WithoutLast(const std::vector<int64_t>& shape) {
  return std::vector<int64_t>(shape.begin(), shape.end() - 1);
}

// The axes of a reduced tensor plus one reduce axis: the full index.
DagBuilder::Axes Extend(const DagBuilder::Axes& outer, const Expr& last) {
  DagBuilder::Axes all = outer;
  all.push_back(last);
  return all;
}

DagBuilder::Axes Outer(const DagBuilder::Axes& axes) { return DagBuilder::Axes(axes.begin(), axes.end() - 1); }

}  // namespace

Tensor Softmax(DagBuilder& b, const Tensor& x, std::string name) {
  TF_CHECK(!x.shape.empty(), "softmax of a scalar");
  int64_t n = x.shape.back();
  auto outer = WithoutLast(x.shape);
  auto mx = b.Reduce(name + ".max", te::ReduceKind::kMax, outer, {n},
                     [&](const DagBuilder::Axes& i, const DagBuilder::Axes& r) { return x(Extend(i, r[0])); });
  auto e = b.Compute(name + ".exp", x.shape, [&](const DagBuilder::Axes& i) { return te::Exp(x(i) - mx(Outer(i))); });
  auto sum = b.Reduce(name + ".sum", te::ReduceKind::kSum, outer, {n},
                      [&](const DagBuilder::Axes& i, const DagBuilder::Axes& r) { return e(Extend(i, r[0])); });
  return b.Compute(std::move(name), x.shape, [&](const DagBuilder::Axes& i) { return e(i) / sum(Outer(i)); });
}

Tensor LayerNorm(DagBuilder& b, const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps, std::string name) {
  int64_t n = x.shape.back();
  auto outer = WithoutLast(x.shape);
  te::Expr inv_n = te::Const(x.dtype, 1.0 / static_cast<double>(n));
  auto mean = b.Reduce(name + ".mean", te::ReduceKind::kSum, outer, {n},
                       [&](const DagBuilder::Axes& i, const DagBuilder::Axes& r) { return x(Extend(i, r[0])) * inv_n; });
  auto var = b.Reduce(name + ".var", te::ReduceKind::kSum, outer, {n},
                      [&](const DagBuilder::Axes& i, const DagBuilder::Axes& r) {
                        Expr d = x(Extend(i, r[0])) - mean(i);
                        return d * d * inv_n;
                      });
  return b.Compute(std::move(name), x.shape, [&](const DagBuilder::Axes& i) {
    Expr scale = te::Rsqrt(var(Outer(i)) + te::Const(x.dtype, eps));
    return (x(i) - mean(Outer(i))) * scale * gamma(i.back()) + beta(i.back());
  });
}

}  // namespace tunefarm::ops
