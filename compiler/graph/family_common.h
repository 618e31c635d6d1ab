// Helpers for writing an op family (family_*.cc, internal to compiler/graph): attribute specs and
// inference errors for schemas, and the small glue between a node and compiler/ops for computes.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "common/status_macros.h"
#include "common/strings.h"
#include "compiler/graph/op_compute.h"
#include "compiler/graph/op_registry.h"
#include "compiler/graph/onnx_converter.h"
#include "compiler/ops/elementwise.h"

namespace tunefarm::graph::family {

// ---- schemas ----

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
  // float16/bfloat16 too: ComputeNode computes them in float32.
  if (!te::IsFloat(t.dtype) && !te::IsStorageFloat(t.dtype))
    return Error(StrCat(what, " must be a float tensor, got ", t.ToString()));
  return absl::OkStatus();
}

// `base` followed by `more` (a family's shared attributes plus an op's own).
inline std::vector<AttrSpec> With(std::vector<AttrSpec> base, std::vector<AttrSpec> more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// ---- converters ----

// auto_pad resolved into explicit pads for an input of type `x` and window `kernel` (Conv, the
// pools, and the integer convolutions that emit a Conv).
absl::Status ResolveAutoPad(const OnnxNode& n, const TensorType& x, const std::vector<int64_t>& kernel, Attrs* attrs);

// ---- computes ----

using Outputs = absl::StatusOr<std::vector<TeTensor>>;

// One op-library result as the node's only output.
inline Outputs One(absl::StatusOr<TeTensor> t) {
  if (!t.ok()) return t.status();
  return std::vector<TeTensor>{*std::move(t)};
}

inline void Set(OpRegistry* r, const std::string& op, ComputeFn fn) {
  r->SetCompute(op, std::make_shared<const OpCompute>(OpCompute{std::move(fn)}));
}

// Attribute `name`, or `count` copies of `fill` when it is absent (strides, dilations, pads).
inline std::vector<int64_t> IntsOr(const Node& n, const char* name, size_t count, int64_t fill) {
  std::vector<int64_t> v = n.attrs.GetInts(name);
  if (v.empty()) v.assign(count, fill);
  return v;
}

inline absl::Status Unimplemented(const std::string& why) { return absl::UnimplementedError(why); }

// Adds the optional bias (input 2) along the channel axis.
inline Outputs WithBias(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in, absl::StatusOr<TeTensor> y) {
  if (!y.ok() || in.size() < 3) return One(std::move(y));
  return One(ops::BiasAdd(b, *y, in[2], ops::BiasAddParams{1}, n.name));
}

}  // namespace tunefarm::graph::family
