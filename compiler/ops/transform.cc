#include "compiler/ops/transform.h"

#include <algorithm>

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> Transpose(DagBuilder& b, const Tensor& x, const TransposeParams& p, std::string name) {
  if (auto s = CheckShape("transpose", "input", x.shape); !s.ok()) return s;
  const int rank = static_cast<int>(x.shape.size());
  std::vector<int64_t> perm = p.perm;
  if (perm.empty())
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  if (static_cast<int>(perm.size()) != rank)
    return OpError("transpose", StrCat("perm has ", perm.size(), " values for rank ", rank));
  std::vector<int> axes;
  for (int64_t a : perm) {
    auto n = NormalizeAxis("transpose", a, rank);
    if (!n.ok()) return n.status();
    axes.push_back(*n);
  }
  if (auto sorted = NormalizeAxes("transpose", perm, rank); !sorted.ok())
    return OpError("transpose", StrCat("perm [", StrJoin(perm, ","), "] is not a permutation"));
  Shape shape;
  for (int a : axes) shape.push_back(x.shape[a]);
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    std::vector<Expr> index(rank);
    for (int d = 0; d < rank; ++d) index[axes[d]] = i[d];
    return x(index);
  });
}

absl::StatusOr<Shape> ReshapeShape(const Shape& input, const std::vector<int64_t>& target) {
  const int64_t total = NumElements(input);
  Shape shape;
  int infer = -1;
  int64_t known = 1;
  for (size_t d = 0; d < target.size(); ++d) {
    int64_t v = target[d];
    if (v == 0) {
      if (d >= input.size()) return OpError("reshape", StrCat("0 at position ", d, " has no input dimension to copy"));
      v = input[d];
    }
    if (v == -1) {
      if (infer >= 0) return OpError("reshape", "more than one -1 in the target shape");
      infer = static_cast<int>(d);
      shape.push_back(1);
      continue;
    }
    if (v < 1 || v > total) return OpError("reshape", StrCat("invalid dimension ", v, " in the target shape"));
    shape.push_back(v);
    known *= v;
    if (known > total) break;  // cannot fit; reported below (and keeps `known` from overflowing)
  }
  if (infer >= 0) {
    if (total % known != 0)
      return OpError("reshape", StrCat("cannot infer -1: ", total, " elements are not a multiple of ", known));
    shape[infer] = total / known;
  }
  if (shape.size() != target.size() || NumElements(shape) != total)
    return OpError("reshape", StrCat("input ", ShapeString(input), " cannot be reshaped to [", StrJoin(target, ","), "]"));
  return shape;
}

absl::StatusOr<Tensor> Reshape(DagBuilder& b, const Tensor& x, const ReshapeParams& p, std::string name) {
  if (auto s = CheckShape("reshape", "input", x.shape); !s.ok()) return s;
  auto shape = ReshapeShape(x.shape, p.shape);
  if (!shape.ok()) return shape.status();
  return b.Compute(std::move(name), *shape, [&](const Axes& i) {
    if (*shape == x.shape) return x(i);
    Expr flat;
    for (size_t d = 0; d < i.size(); ++d) flat = flat.defined() ? flat * (*shape)[d] + i[d] : i[d];
    if (!flat.defined()) flat = Expr(0);  // 0-d output
    // Row-major: input index d is (flat / stride_d) % size_d; the first needs no modulo, the
    // last no division.
    std::vector<Expr> index(x.shape.size());
    int64_t stride = 1;
    for (size_t d = x.shape.size(); d-- > 0;) {
      Expr v = stride == 1 ? flat : flat / stride;
      index[d] = d == 0 ? v : v % x.shape[d];
      stride *= x.shape[d];
    }
    return x(index);
  });
}

absl::StatusOr<Tensor> Concat(DagBuilder& b, const std::vector<Tensor>& inputs, int64_t axis, std::string name) {
  if (inputs.empty()) return OpError("concat", "no inputs");
  const Tensor& first = inputs[0];
  const int rank = static_cast<int>(first.shape.size());
  auto a = NormalizeAxis("concat", axis, rank);
  if (!a.ok()) return a.status();
  std::vector<int64_t> offsets;  // start of each input along the axis
  Shape shape = first.shape;
  shape[*a] = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& t = inputs[k];
    if (auto s = CheckShape("concat", StrCat("input ", k), t.shape); !s.ok()) return s;
    if (t.dtype != first.dtype) return OpError("concat", "inputs have different dtypes");
    bool fits = static_cast<int>(t.shape.size()) == rank;
    for (int d = 0; fits && d < rank; ++d) fits = d == *a || t.shape[d] == first.shape[d];
    if (!fits)
      return OpError("concat", StrCat("input ", k, " ", ShapeString(t.shape), " does not match ",
                                      ShapeString(first.shape), " outside axis ", *a));
    offsets.push_back(shape[*a]);
    shape[*a] += t.shape[*a];
  }
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    // The last input, then for each earlier one: i < its end ? it : (what follows). Reads are
    // clamped into each input since select evaluates both arms.
    auto read = [&](size_t k) {
      std::vector<Expr> index = i;
      index[*a] = Clamp(i[*a] - offsets[k], 0, inputs[k].shape[*a] - 1);
      return inputs[k](index);
    };
    if (inputs.size() == 1) return inputs[0](i);
    Expr value = read(inputs.size() - 1);
    for (size_t k = inputs.size() - 1; k-- > 0;)
      value = te::Select(te::Lt(i[*a], offsets[k + 1]), read(k), value);
    return value;
  });
}

absl::StatusOr<Tensor> Slice(DagBuilder& b, const Tensor& x, const SliceParams& p, std::string name) {
  if (auto s = CheckShape("slice", "input", x.shape); !s.ok()) return s;
  const int rank = static_cast<int>(x.shape.size());
  const size_t n = p.starts.size();
  if (p.ends.size() != n || (!p.axes.empty() && p.axes.size() != n) || (!p.steps.empty() && p.steps.size() != n))
    return OpError("slice", "starts, ends, axes and steps must have the same length");
  std::vector<int64_t> start(rank, 0), step(rank, 1);
  Shape shape = x.shape;
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < n; ++k) {
    auto axis = NormalizeAxis("slice", p.axes.empty() ? static_cast<int64_t>(k) : p.axes[k], rank);
    if (!axis.ok()) return axis.status();
    if (seen[*axis]) return OpError("slice", StrCat("axis ", *axis, " is sliced twice"));
    seen[*axis] = true;
    const int64_t dim = x.shape[*axis], st = p.steps.empty() ? 1 : p.steps[k];
    if (st == 0) return OpError("slice", "step 0");
    // ONNX: negative values count from the end, then clamp ([0, dim] forwards, [-1, dim-1] backwards).
    auto resolve = [&](int64_t v, int64_t lo, int64_t hi) { return std::clamp(v < 0 ? v + dim : v, lo, hi); };
    int64_t s = st > 0 ? resolve(p.starts[k], 0, dim) : resolve(p.starts[k], 0, dim - 1);
    int64_t e = st > 0 ? resolve(p.ends[k], 0, dim) : resolve(p.ends[k], -1, dim - 1);
    int64_t len = st > 0 ? (e - s + st - 1) / st : (s - e + (-st) - 1) / (-st);
    if (len < 1) return OpError("slice", StrCat("axis ", *axis, " would be empty"));
    start[*axis] = s;
    step[*axis] = st;
    shape[*axis] = len;
  }
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    std::vector<Expr> index;
    for (int d = 0; d < rank; ++d) {
      Expr v = step[d] == 1 ? i[d] : i[d] * step[d];
      index.push_back(start[d] == 0 ? v : v + start[d]);
    }
    return x(index);
  });
}

absl::StatusOr<Tensor> Expand(DagBuilder& b, const Tensor& x, const std::vector<int64_t>& shape, std::string name) {
  if (auto s = CheckShape("expand", "input", x.shape); !s.ok()) return s;
  if (auto s = CheckShape("expand", "shape", shape); !s.ok()) return s;
  auto out = BroadcastShapes("expand", {x.shape, shape});
  if (!out.ok()) return out.status();
  return b.Compute(std::move(name), *out, [&](const Axes& i) { return BroadcastRead(x, i); });
}

absl::StatusOr<Tensor> Tile(DagBuilder& b, const Tensor& x, const std::vector<int64_t>& repeats, std::string name) {
  if (auto s = CheckShape("tile", "input", x.shape); !s.ok()) return s;
  if (repeats.size() != x.shape.size())
    return OpError("tile", StrCat("repeats has ", repeats.size(), " values for rank ", x.shape.size()));
  Shape shape = x.shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (repeats[d] < 1) return OpError("tile", StrCat("repeat ", repeats[d], " on axis ", d, " is not positive"));
    shape[d] *= repeats[d];
  }
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    std::vector<Expr> index;
    for (size_t d = 0; d < i.size(); ++d) index.push_back(i[d] % te::IntImm(te::kIndexType, x.shape[d]));
    return x(index);
  });
}

absl::StatusOr<Tensor> Copy(DagBuilder& b, const Tensor& x, std::string name) {
  if (auto s = CheckShape("copy", "input", x.shape); !s.ok()) return s;
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) { return x(i); });
}

}  // namespace tunefarm::ops
