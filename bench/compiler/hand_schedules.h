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

// A conv2d NCHW DAG (x, w, [pad], conv): padding inlined, output channels tiled by kr
// (unrolled), output columns by vf (vectorized), optional input-channel blocking.
std::vector<NamedState> ConvTemplates(std::shared_ptr<const te::ComputeDag> dag, int vector_lanes);

}  // namespace tunefarm::bench
