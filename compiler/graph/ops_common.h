// Small helpers for writing op schemas (internal to compiler/graph).
#pragma once

#include <limits>

#include "common/strings.h"
#include "compiler/graph/op_registry.h"

namespace tunefarm::graph::ops {

inline AttrSpec Int(const std::string& name, int64_t v) { return {name, AttrKind::kInt, AttrValue(v)}; }
inline AttrSpec Float(const std::string& name, double v) { return {name, AttrKind::kFloat, AttrValue(v)}; }
inline AttrSpec Str(const std::string& name, const std::string& v) { return {name, AttrKind::kString, AttrValue(v)}; }
inline AttrSpec IntList(const std::string& name, std::vector<int64_t> v = {}) {
  return {name, AttrKind::kInts, AttrValue(std::move(v))};
}
inline AttrSpec Required(const std::string& name, AttrKind kind) { return {name, kind, std::nullopt}; }

inline absl::Status Error(const std::string& msg) { return absl::InvalidArgumentError(msg); }

inline absl::Status SameDType(const std::vector<TensorType>& in, size_t a, size_t b) {
  if (in[a].dtype != in[b].dtype)
    return Error(StrCat("input ", a, " is ", te::DTypeName(in[a].dtype), " but input ", b, " is ",
                        te::DTypeName(in[b].dtype)));
  return absl::OkStatus();
}

inline absl::Status NeedRank(const TensorType& t, size_t rank, const char* what) {
  if (t.shape.size() != rank) return Error(StrCat(what, " must have rank ", rank, ", got ", t.ToString()));
  return absl::OkStatus();
}

inline absl::Status NeedFloat(const TensorType& t, const char* what) {
  if (!te::IsFloat(t.dtype)) return Error(StrCat(what, " must be a float tensor, got ", t.ToString()));
  return absl::OkStatus();
}

#define TF_RETURN_IF_ERROR(expr)          \
  do {                                    \
    absl::Status _st = (expr);            \
    if (!_st.ok()) return _st;            \
  } while (0)

}  // namespace tunefarm::graph::ops
