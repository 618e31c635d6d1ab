// Small helpers for writing op computes (internal to compiler/graph).
#pragma once

#include <string>
#include <vector>

#include "common/strings.h"
#include "compiler/graph/op_compute.h"

namespace tunefarm::graph::compute {

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

}  // namespace tunefarm::graph::compute
