#include "compiler/ops/generate.h"

#include <cmath>
#include <numbers>

#include "common/strings.h"
#include "compiler/ops/unary.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> Range(DagBuilder& b, DType dtype, double start, double delta, int64_t count, std::string name) {
  if (auto s = CheckDType("range", "output", dtype, DTypeSet::kNumeric); !s.ok()) return s;
  if (count <= 0) return OpError("range", StrCat("an empty range (", count, " elements) is no tensor"));
  return b.Compute(std::move(name), {count}, [&](const Axes& i) {
    return ScalarConst(dtype, start) + te::Cast(dtype, i[0]) * ScalarConst(dtype, delta);
  });
}

absl::StatusOr<Tensor> EyeLike(DagBuilder& b, DType dtype, int64_t rows, int64_t cols, int64_t k, std::string name) {
  if (auto s = CheckDType("eye_like", "output", dtype, DTypeSet::kAny); !s.ok()) return s;
  if (auto s = CheckShape("eye_like", "output", {rows, cols}); !s.ok()) return s;
  return b.Compute(std::move(name), {rows, cols}, [&](const Axes& i) {
    return te::Select(te::Eq(i[1] - i[0], Expr(k)), ScalarConst(dtype, 1), ScalarConst(dtype, 0));
  });
}

absl::StatusOr<Tensor> Window(DagBuilder& b, WindowKind kind, int64_t size, bool periodic, DType dtype,
                              std::string name) {
  if (auto s = CheckDType("window", "output", dtype, DTypeSet::kNumeric); !s.ok()) return s;
  if (size <= 0) return OpError("window", StrCat("size ", size, " is not positive"));
  const double period = periodic ? static_cast<double>(size) : static_cast<double>(size - 1);
  // A symmetric window of one point is [1], as NumPy and SciPy define it (the formula divides 0 by 0).
  if (period == 0) return b.Compute(std::move(name), {size}, [&](const Axes&) { return ScalarConst(dtype, 1); });
  const double step = 2 * std::numbers::pi / period;
  auto cos_of = [](const Expr& angle) { return UnaryExpr({UnaryOp::kCos, std::nullopt, std::nullopt}, angle); };
  return b.Compute(std::move(name), {size}, [&](const Axes& i) {
    const DType f = DType::kFloat64;
    Expr angle = te::Cast(f, i[0]) * te::Const(f, step);
    Expr w;
    switch (kind) {
      case WindowKind::kHann: w = te::Const(f, 0.5) - te::Const(f, 0.5) * cos_of(angle); break;
      case WindowKind::kHamming: w = te::Const(f, 25.0 / 46) - te::Const(f, 21.0 / 46) * cos_of(angle); break;
      case WindowKind::kBlackman:
        w = te::Const(f, 0.42) - te::Const(f, 0.5) * cos_of(angle) + te::Const(f, 0.08) * cos_of(angle * te::Const(f, 2));
        break;
    }
    return te::Cast(dtype, w);
  });
}

absl::StatusOr<Tensor> OneHot(DagBuilder& b, const Tensor& indices, const Tensor& values, const OneHotParams& p,
                              std::string name) {
  if (auto s = CheckShape("one_hot", "indices", indices.shape); !s.ok()) return s;
  if (auto s = CheckDType("one_hot", "indices", indices.dtype, DTypeSet::kNumeric); !s.ok()) return s;
  if (values.shape != Shape{2}) return OpError("one_hot", "values must hold [off, on]");
  if (p.depth <= 0) return OpError("one_hot", StrCat("depth ", p.depth, " is not positive"));
  const int out_rank = static_cast<int>(indices.shape.size()) + 1;
  auto axis = NormalizeAxis("one_hot", p.axis, out_rank);
  if (!axis.ok()) return axis.status();
  const int a = *axis;
  Shape shape = indices.shape;
  shape.insert(shape.begin() + a, p.depth);
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    Axes at(i.begin(), i.end());
    const Expr position = at[a];
    at.erase(at.begin() + a);
    // Float indices are truncated toward zero (ONNX casts them to integers).
    Expr index = te::Cast(DType::kInt64, indices(at));
    index = te::Select(te::Lt(index, te::IntImm(DType::kInt64, 0)), index + te::IntImm(DType::kInt64, p.depth), index);
    return te::Select(te::Eq(index, te::Cast(DType::kInt64, position)), values({Expr(1)}), values({Expr(0)}));
  });
}

}  // namespace tunefarm::ops
