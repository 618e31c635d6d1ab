#include "compiler/ops/reduce.h"

#include <algorithm>

#include "common/strings.h"

namespace tunefarm::ops {

std::string_view ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "reduce_sum";
    case ReduceOp::kMean: return "reduce_mean";
    case ReduceOp::kMax: return "reduce_max";
    case ReduceOp::kMin: return "reduce_min";
    case ReduceOp::kProd: return "reduce_prod";
  }
  return "?";
}

absl::StatusOr<Tensor> Reduce(DagBuilder& b, const Tensor& x, const ReduceParams& p, std::string name) {
  std::string_view op = ReduceOpName(p.op);
  if (name.empty()) name = std::string(op);
  if (auto s = CheckShape(op, "input", x.shape); !s.ok()) return s;
  bool minmax = p.op == ReduceOp::kMax || p.op == ReduceOp::kMin;
  if (auto s = CheckDType(op, "input", x.dtype, DTypeSet::kNumeric); !s.ok()) return s;
  if (!minmax && !te::IsFloat(x.dtype) && x.dtype != DType::kInt32 && x.dtype != DType::kInt64)
    return OpError(op, StrCat("input is ", te::DTypeName(x.dtype), ", expected float32, float64, int32 or int64"));
  const int rank = static_cast<int>(x.shape.size());
  std::vector<int> axes;
  if (p.axes.empty()) {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  } else {
    auto normalized = NormalizeAxes(op, p.axes, rank);
    if (!normalized.ok()) return normalized.status();
    axes = *normalized;
  }
  auto reduced = [&](int d) { return std::find(axes.begin(), axes.end(), d) != axes.end(); };
  Shape shape, extents;
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (!reduced(d)) {
      shape.push_back(x.shape[d]);
    } else {
      extents.push_back(x.shape[d]);
      count *= x.shape[d];
      if (p.keepdims) shape.push_back(1);
    }
  }
  // Maps an output point and a reduce point to the input index.
  auto read = [&](const Axes& i, const Axes& r) {
    std::vector<Expr> index;
    size_t out_axis = 0, reduce_axis = 0;
    for (int d = 0; d < rank; ++d) {
      if (reduced(d)) {
        index.push_back(r[reduce_axis++]);
        if (p.keepdims) ++out_axis;
      } else {
        index.push_back(i[out_axis++]);
      }
    }
    return x(index);
  };
  te::ReduceKind kind = p.op == ReduceOp::kMax   ? te::ReduceKind::kMax
                        : p.op == ReduceOp::kMin  ? te::ReduceKind::kMin
                        : p.op == ReduceOp::kProd ? te::ReduceKind::kProd
                                                  : te::ReduceKind::kSum;
  // A 0-d input has no axis to reduce: the result is a copy.
  if (extents.empty()) return b.Compute(std::move(name), shape, [&](const Axes& i) { return read(i, {}); });
  if (p.op != ReduceOp::kMean) return b.Reduce(std::move(name), kind, shape, extents, read);
  Tensor sum = b.Reduce(name + ".sum", kind, shape, extents, read);
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    if (te::IsFloat(x.dtype)) return sum(i) * te::Const(x.dtype, 1.0 / static_cast<double>(count));
    return TruncDiv(sum(i), te::Const(x.dtype, static_cast<double>(count)));
  });
}

}  // namespace tunefarm::ops
