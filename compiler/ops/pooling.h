// 2-D max and average pooling over NCHW with padding.
#pragma once

#include <array>
#include <string>

#include "compiler/te/compute_dag.h"

namespace tunefarm::ops {

using te::DagBuilder;
using Tensor = te::DagBuilder::Tensor;

enum class PoolKind { kMax, kAvg };

struct Pool2dParams {
  PoolKind kind = PoolKind::kMax;
  std::array<int64_t, 2> kernel{2, 2};
  std::array<int64_t, 2> stride{2, 2};
  std::array<int64_t, 4> padding{0, 0, 0, 0};  // top, left, bottom, right
  bool count_include_pad = true;               // avg only
};

Tensor Pool2dNchw(DagBuilder& b, const Tensor& input, const Pool2dParams& p, std::string name = "pool2d");

}  // namespace tunefarm::ops
