#include "compiler/ops/gather.h"

namespace tunefarm::ops {

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
    Expr raw = te::Cast(te::kIndexType, indices(std::vector<Expr>(i.begin() + a, i.begin() + a + ni)));
    Expr wrapped = te::Select(te::Lt(raw, Expr(0)), raw + dim, raw);
    std::vector<Expr> index(i.begin(), i.begin() + a);
    index.push_back(Clamp(wrapped, 0, dim - 1));
    index.insert(index.end(), i.begin() + a + ni, i.end());
    return data(index);
  });
}

}  // namespace tunefarm::ops
