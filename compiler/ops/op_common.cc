#include "compiler/ops/op_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/strings.h"

namespace tunefarm::ops {

bool InDTypeSet(DType t, DTypeSet set) {
  if (te::IsStorageFloat(t)) return false;  // no op computes on float16/bfloat16 (only Cast)
  switch (set) {
    case DTypeSet::kFloat: return te::IsFloat(t);
    case DTypeSet::kSignedNumeric: return te::IsSigned(t);
    case DTypeSet::kNumeric: return t != DType::kBool;
    case DTypeSet::kInt: return t == DType::kInt32 || t == DType::kInt64;
    case DTypeSet::kBool: return t == DType::kBool;
    case DTypeSet::kAny: return true;
  }
  return false;
}

std::string_view DTypeSetName(DTypeSet set) {
  switch (set) {
    case DTypeSet::kFloat: return "float32 or float64";
    case DTypeSet::kSignedNumeric: return "a signed integer, float32 or float64";
    case DTypeSet::kNumeric: return "an integer, float32 or float64";
    case DTypeSet::kInt: return "int32 or int64";
    case DTypeSet::kBool: return "bool";
    case DTypeSet::kAny: return "bool, an integer, float32 or float64";
  }
  return "?";
}

std::string ShapeString(const Shape& shape) { return StrCat("[", StrJoin(shape, ","), "]"); }

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

absl::Status OpError(std::string_view op, std::string_view what) {
  return absl::InvalidArgumentError(StrCat(op, ": ", what));
}

absl::Status CheckShape(std::string_view op, std::string_view what, const Shape& shape) {
  // Well below 2^63 so index arithmetic (flat indices, padded extents) cannot overflow.
  constexpr int64_t kMaxElements = int64_t{1} << 40;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 1) return OpError(op, StrCat(what, " has shape ", ShapeString(shape), ": every dimension must be >= 1"));
    if (d > kMaxElements || n > kMaxElements / d)
      return OpError(op, StrCat(what, " has shape ", ShapeString(shape), ": too many elements"));
    n *= d;
  }
  return absl::OkStatus();
}

absl::Status CheckDType(std::string_view op, std::string_view what, DType t, DTypeSet allowed) {
  if (InDTypeSet(t, allowed)) return absl::OkStatus();
  return OpError(op, StrCat(what, " is ", te::DTypeName(t), ", expected ", DTypeSetName(allowed)));
}

absl::Status CheckRank(std::string_view op, std::string_view what, const Shape& shape, int rank) {
  if (static_cast<int>(shape.size()) == rank) return absl::OkStatus();
  return OpError(op, StrCat(what, " must have rank ", rank, ", got shape ", ShapeString(shape)));
}

absl::StatusOr<int> NormalizeAxis(std::string_view op, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) return OpError(op, StrCat("axis ", axis, " is out of range for rank ", rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

absl::StatusOr<std::vector<int>> NormalizeAxes(std::string_view op, const std::vector<int64_t>& axes, int rank) {
  std::vector<int> out;
  for (int64_t a : axes) {
    auto n = NormalizeAxis(op, a, rank);
    if (!n.ok()) return n.status();
    out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) return OpError(op, "an axis is listed twice");
  return out;
}

absl::StatusOr<Shape> BroadcastShapes(std::string_view op, const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape& s : shapes) {
    size_t offset = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = out[offset + d];
      if (s[d] == o || s[d] == 1) continue;
      if (o != 1) {
        std::vector<std::string> names;
        for (const Shape& t : shapes) names.push_back(ShapeString(t));
        return OpError(op, StrCat("shapes ", StrJoin(names, " and "), " do not broadcast"));
      }
      o = s[d];
    }
  }
  return out;
}

Expr BroadcastRead(const Tensor& t, const Axes& out) {
  size_t offset = out.size() - t.shape.size();
  std::vector<Expr> index;
  for (size_t d = 0; d < t.shape.size(); ++d) index.push_back(t.shape[d] == 1 ? Expr(0) : out[offset + d]);
  return t(index);
}

Expr Clamp(const Expr& i, int64_t lo, int64_t hi) { return te::Min(te::Max(i, lo), hi); }

Expr InRange(const Expr& i, int64_t lo, int64_t hi) { return te::And(te::Ge(i, lo), te::Lt(i, hi)); }

Expr AllOf(const std::vector<Expr>& conds) {
  Expr all;
  for (const Expr& c : conds) all = all.defined() ? te::And(all, c) : c;
  return all;
}

Expr TruncDiv(const Expr& a, const Expr& b) {
  Expr q = a / b;
  Expr zero = te::Const(a->dtype, 0);
  // Floor and truncation differ when the division is inexact and the signs differ.
  Expr adjust = te::And(te::Ne(a % b, zero), te::Ne(te::Lt(a, zero), te::Lt(b, zero)));
  return te::Select(adjust, q + te::Const(a->dtype, 1), q);
}

Expr ScalarConst(DType t, double v) {
  if (te::IsFloat(t)) return te::FloatImm(t, v);
  return te::IntImm(t, te::SaturateToIntDType(t, v));
}

Expr Lowest(DType t) { return te::ReduceIdentity(te::ReduceKind::kMax, t); }
Expr Highest(DType t) { return te::ReduceIdentity(te::ReduceKind::kMin, t); }

Tensor OrDie(absl::StatusOr<Tensor> t) {
  if (!t.ok()) {
    std::fprintf(stderr, "op library: %s\n", std::string(t.status().message()).c_str());
    std::abort();
  }
  return *std::move(t);
}

}  // namespace tunefarm::ops
