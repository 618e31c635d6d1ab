#include "compiler/ops/int8_matmul.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Shape> PackedInt8WeightShape(const Shape& b) {
  if (b.size() != 2) return OpError("matmul_u8s8", StrCat("B must be [K, N], got ", ShapeString(b)));
  if (b[0] % kInt8DotDepth != 0 || b[1] % kInt8DotLanes != 0)
    return OpError("matmul_u8s8", StrCat("B ", ShapeString(b), " needs K a multiple of ", kInt8DotDepth,
                                         " and N a multiple of ", kInt8DotLanes));
  return Shape{b[1] / kInt8DotLanes, b[0] / kInt8DotDepth, kInt8DotLanes, kInt8DotDepth};
}

absl::StatusOr<Tensor> MatmulU8S8(DagBuilder& b, const Tensor& a, const Tensor& packed_b, std::string name) {
  constexpr std::string_view kOp = "matmul_u8s8";
  if (auto s = CheckShape(kOp, "a", a.shape); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "packed b", packed_b.shape); !s.ok()) return s;
  if (a.dtype != DType::kUInt8) return OpError(kOp, StrCat("a is ", te::DTypeName(a.dtype), ", expected uint8"));
  if (packed_b.dtype != DType::kInt8)
    return OpError(kOp, StrCat("packed b is ", te::DTypeName(packed_b.dtype), ", expected int8"));
  const Shape& p = packed_b.shape;
  if (p.size() != 4 || p[2] != kInt8DotLanes || p[3] != kInt8DotDepth)
    return OpError(kOp, StrCat("packed b must be [N/", kInt8DotLanes, ", K/", kInt8DotDepth, ", ", kInt8DotLanes, ", ",
                               kInt8DotDepth, "], got ", ShapeString(p)));
  if (a.shape.size() < 2) return OpError(kOp, StrCat("a must be [..., M, K], got ", ShapeString(a.shape)));
  const int64_t k = a.shape.back();
  if (k != p[1] * kInt8DotDepth)
    return OpError(kOp, StrCat("a ", ShapeString(a.shape), " has K = ", k, " but packed b ", ShapeString(p), " has K = ",
                               p[1] * kInt8DotDepth));
  Shape out(a.shape.begin(), a.shape.end() - 1);
  out.push_back(p[0]);
  out.push_back(kInt8DotLanes);
  const size_t rank = out.size();
  return b.Reduce(std::move(name), te::ReduceKind::kSum, out, {k / kInt8DotDepth}, [&](const Axes& i, const Axes& r) {
    const Expr block = i[rank - 2], lane = i[rank - 1];
    std::vector<Expr> ia(i.begin(), i.end() - 2);
    ia.push_back(Expr());
    Expr sum;
    for (int64_t j = 0; j < kInt8DotDepth; ++j) {
      ia.back() = r[0] * kInt8DotDepth + j;
      Expr product =
          te::Cast(DType::kInt32, a(ia)) * te::Cast(DType::kInt32, packed_b({block, r[0], lane, Expr(j)}));
      sum = sum.defined() ? sum + product : product;
    }
    return sum;
  });
}

}  // namespace tunefarm::ops
