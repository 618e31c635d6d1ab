// The graph-level optimization pipeline (DESIGN.md "Graph passes"): one readable list of passes.
// Fusion and memory planning run after it, on the optimized graph (fusion.h, memory_plan.h).
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::passes {

struct PassOptions {
  bool fold_constants = true;
  bool fold_batch_norm = true;
  bool eliminate_common_subexpressions = true;
  // Gemm weights given as [out, in] (transB = 1) transposed at compile time (dense_weights.h).
  bool pretranspose_dense_weights = true;
  // Pow(x, 2) as Mul(x, x) (square_by_multiplication.h).
  bool square_by_multiplication = true;
  // NCHW[x]c block for the conv region (layout.h), normally the target's float vector lanes;
  // 0 leaves the graph in NCHW. build::PlanModel sets it from the target.
  int layout_block = 0;
  // In the NCHW[x]c region, 3x3 stride-1 convs by Winograd (layout.h), from this many input
  // and output channels (with fewer, the transforms can cost more than the multiplies saved;
  // where that line lies depends on the machine: build::MinWinogradChannels).
  bool winograd = true;
  int min_winograd_channels = 0;  // 0: kDefaultMinWinogradChannels; build::PlanModel sets the target's
};

// Runs constant folding, conv+BN folding, constant folding again, dense weight
// pre-transposition, squares by multiplication, CSE, DCE, then (with a layout_block) the
// NCHW[x]c layout pass and DCE again; returns the rewritten graph. Graph inputs and outputs keep their names.
absl::StatusOr<graph::Graph> OptimizeGraph(const graph::Graph& g, const PassOptions& options = {});

}  // namespace tunefarm::passes
