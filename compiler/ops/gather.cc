#include "compiler/ops/gather.h"

#include <algorithm>

#include "common/strings.h"

namespace tunefarm::ops {

namespace {

std::string Dims(const Shape& shape) { return StrCat("[", StrJoin(shape, ","), "]"); }

// An index read from an indices tensor, wrapped (negative from the end) and clamped to [0, dim).
Expr WrappedIndex(const Expr& raw_index, int64_t dim) {
  Expr raw = te::Cast(te::kIndexType, raw_index);
  return Clamp(te::Select(te::Lt(raw, Expr(0)), raw + dim, raw), 0, dim - 1);
}

}  // namespace

absl::StatusOr<Tensor> Gather(DagBuilder& b, const Tensor& data, const Tensor& indices, const GatherParams& p,
                              std::string name) {
  if (auto s = CheckShape("gather", "data", data.shape); !s.ok()) return s;
  if (auto s = CheckShape("gather", "indices", indices.shape); !s.ok()) return s;
  if (auto s = CheckDType("gather", "indices", indices.dtype, DTypeSet::kInt); !s.ok()) return s;
  if (data.shape.empty()) return OpError("gather", "data is a scalar");
  auto axis = NormalizeAxis("gather", p.axis, static_cast<int>(data.shape.size()));
  if (!axis.ok()) return axis.status();
  const int a = *axis;
  const size_t ni = indices.shape.size();
  const int64_t dim = data.shape[a];
  Shape shape(data.shape.begin(), data.shape.begin() + a);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + a + 1, data.shape.end());
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    std::vector<Expr> index(i.begin(), i.begin() + a);
    index.push_back(WrappedIndex(indices(std::vector<Expr>(i.begin() + a, i.begin() + a + ni)), dim));
    index.insert(index.end(), i.begin() + a + ni, i.end());
    return data(index);
  });
}

absl::StatusOr<Tensor> GatherElements(DagBuilder& b, const Tensor& data, const Tensor& indices, const GatherParams& p,
                                      std::string name) {
  if (auto s = CheckShape("gather_elements", "data", data.shape); !s.ok()) return s;
  if (auto s = CheckShape("gather_elements", "indices", indices.shape); !s.ok()) return s;
  if (auto s = CheckDType("gather_elements", "indices", indices.dtype, DTypeSet::kInt); !s.ok()) return s;
  const int rank = static_cast<int>(data.shape.size());
  if (rank == 0) return OpError("gather_elements", "data is a scalar");
  if (static_cast<int>(indices.shape.size()) != rank)
    return OpError("gather_elements", StrCat("indices ", Dims(indices.shape), " and data ",
                                             Dims(data.shape), " differ in rank"));
  auto axis = NormalizeAxis("gather_elements", p.axis, rank);
  if (!axis.ok()) return axis.status();
  const int a = *axis;
  for (int d = 0; d < rank; ++d)
    if (d != a && indices.shape[d] > data.shape[d])
      return OpError("gather_elements", StrCat("indices ", Dims(indices.shape), " exceed data ",
                                               Dims(data.shape), " on axis ", d));
  return b.Compute(std::move(name), indices.shape, [&](const Axes& i) {
    std::vector<Expr> index = i;
    index[a] = WrappedIndex(indices(i), data.shape[a]);
    return data(index);
  });
}

absl::StatusOr<Tensor> GatherND(DagBuilder& b, const Tensor& data, const Tensor& indices, int64_t batch_dims,
                                std::string name) {
  constexpr std::string_view kOp = "gather_nd";
  if (auto s = CheckShape(kOp, "data", data.shape); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "indices", indices.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "indices", indices.dtype, DTypeSet::kInt); !s.ok()) return s;
  const int64_t r = static_cast<int64_t>(data.shape.size()), q = static_cast<int64_t>(indices.shape.size());
  if (q < 1) return OpError(kOp, "indices is a scalar");
  const int64_t k = indices.shape.back();
  if (batch_dims < 0 || batch_dims >= std::min(r, q)) return OpError(kOp, StrCat("batch_dims ", batch_dims, " is out of range"));
  if (k < 1 || k > r - batch_dims)
    return OpError(kOp, StrCat("indices' last extent ", k, " does not fit data ", Dims(data.shape), " after ", batch_dims, " batch axes"));
  for (int64_t d = 0; d < batch_dims; ++d)
    if (data.shape[d] != indices.shape[d]) return OpError(kOp, StrCat("batch axis ", d, " differs between data and indices"));
  Shape shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(), data.shape.begin() + batch_dims + k, data.shape.end());
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    std::vector<Expr> at(i.begin(), i.begin() + batch_dims);
    std::vector<Expr> row(i.begin(), i.begin() + q - 1);
    for (int64_t j = 0; j < k; ++j) {
      row.push_back(Expr(j));
      at.push_back(WrappedIndex(indices(row), data.shape[batch_dims + j]));
      row.pop_back();
    }
    at.insert(at.end(), i.begin() + q - 1, i.end());
    return data(at);
  });
}

absl::StatusOr<Tensor> ReverseSequence(DagBuilder& b, const Tensor& x, const Tensor& lens, int64_t batch_axis,
                                       int64_t time_axis, std::string name) {
  constexpr std::string_view kOp = "reverse_sequence";
  if (auto s = CheckShape(kOp, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "sequence_lens", lens.dtype, DTypeSet::kInt); !s.ok()) return s;
  const int rank = static_cast<int>(x.shape.size());
  if (rank < 2) return OpError(kOp, StrCat("input ", Dims(x.shape), " has rank below 2"));
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
    return OpError(kOp, StrCat("batch_axis ", batch_axis, " and time_axis ", time_axis, " must be 0 and 1 in some order"));
  if (lens.shape != Shape{x.shape[batch_axis]})
    return OpError(kOp, StrCat("sequence_lens ", Dims(lens.shape), " should be [", x.shape[batch_axis], "]"));
  const int64_t steps = x.shape[time_axis];
  return b.Compute(std::move(name), x.shape, [&](const Axes& i) {
    Expr len = Clamp(te::Cast(te::kIndexType, lens(i[batch_axis])), 0, steps);
    Expr t = i[time_axis];
    Axes at = i;
    at[time_axis] = te::Select(te::Lt(t, len), Clamp(len - 1 - t, 0, steps - 1), t);
    return x(at);
  });
}

}  // namespace tunefarm::ops
