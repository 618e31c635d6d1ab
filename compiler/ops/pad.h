// N-D padding (ONNX Pad): constant, reflect (mirror without repeating the edge) and edge
// (repeat the edge). Any dtype.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

enum class PadMode { kConstant, kReflect, kEdge };

struct PadParams {
  PadMode mode = PadMode::kConstant;
  // ONNX order: the begin pads of every axis, then the end pads; 2 * rank values. A negative
  // pad crops. Reflect pads may exceed the axis (the reflection repeats, as numpy's does).
  std::vector<int64_t> pads;
  double value = 0;  // constant mode; converted to x's dtype (see ScalarConst)
};

absl::StatusOr<Tensor> Pad(DagBuilder& b, const Tensor& x, const PadParams& p, std::string name = "pad");

// The source index of output index `i` along an axis of size `size` padded by `pad_begin`:
// clamped for edge mode, reflected for reflect mode, clamped (for the guarded read) for constant.
Expr PadSourceIndex(PadMode mode, const Expr& i, int64_t pad_begin, int64_t size);

}  // namespace tunefarm::ops
