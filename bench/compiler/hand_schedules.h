// Hand-written schedule templates for the kernel benchmarks: the best a person writes with the
// schedule steps, a few variants each, the fastest of which is reported. The tuner must beat
// these.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"

namespace tunefarm::bench {

struct NamedState {
  std::string name;
  schedule::State state;
};

// C[m,n] = A[m,k] B[k,n] (stage 2 of a plain matmul DAG): register tiles mr x nr, optional k
// blocking, parallel rows, vectorized columns.
std::vector<NamedState> GemmTemplates(std::shared_ptr<const te::ComputeDag> dag, int vector_lanes);

// The same GEMM with the local scope: C.local, an mr x nr register tile computed at C's row-tile
// loop (k outermost inside it), and optionally B.local, the K x nr panel of B packed contiguously
// at C's column-tile loop (parallel) and reused by every row tile.
std::vector<NamedState> GemmTileTemplates(std::shared_ptr<const te::ComputeDag> dag, int vector_lanes);

// A conv2d NCHW DAG (x, w, [pad], conv): padding inlined, output channels tiled by kr
// (unrolled), output columns by vf (vectorized), optional input-channel blocking.
std::vector<NamedState> ConvTemplates(std::shared_ptr<const te::ComputeDag> dag, int vector_lanes);

// A conv2d NCHW[x]c DAG (x, w, [pad], conv) with the local scope: conv.local, a register tile of
// kob output-channel blocks x owb output columns x y lanes computed at the conv's column-tile
// loop (the whole reduction inside it), the fused n/ko/oh loops in parallel; padding inlined or
// computed once at the root.
std::vector<NamedState> ConvNchwcTileTemplates(std::shared_ptr<const te::ComputeDag> dag, int vector_lanes);

// The same conv with the reduction split: conv.local holds kob output-channel blocks x the whole
// output plane per parallel iteration, and the input-channel blocks run outermost in chunks of
// cib, so a chunk's weights stay in L1/L2 while every register tile of the plane reuses them.
std::vector<NamedState> ConvNchwcBlockTemplates(std::shared_ptr<const te::ComputeDag> dag, int vector_lanes);

}  // namespace tunefarm::bench
