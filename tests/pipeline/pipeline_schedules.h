// Hand-written schedules used by the pipeline test (and the determinism probe in main.cc).
#pragma once

#include "common/check.h"
#include "compiler/schedule/state.h"
#include "tests/common/test_dags.h"

namespace tunefarm::testing {

// GEMM + bias: register tiles of 4 rows x 16 columns, k split by 4, the row tiles run in
// parallel, columns vectorized, the bias stage computed per row tile.
inline schedule::State TiledGemmBias(int64_t m, int64_t n, int64_t k) {
  schedule::State s(GemmBiasDag(m, n, k));
  using schedule::IterAnnotation;
  auto ok = [](absl::Status st) { TF_CHECK(st.ok(), std::string(st.message()).c_str()); };
  ok(s.Split(3, 0, {4}));                          // C: i.0 i.1 j k
  ok(s.Split(3, 2, {16}));                         // C: i.0 i.1 j.0 j.1 k
  ok(s.Split(3, 4, {4}));                          // C: i.0 i.1 j.0 j.1 k.0 k.1
  ok(s.Reorder(3, {0, 2, 4, 5, 1, 3}));            // i.0 j.0 k.0 k.1 i.1 j.1
  ok(s.Annotate(3, 4, IterAnnotation::kUnroll));
  ok(s.Annotate(3, 5, IterAnnotation::kVectorize));
  ok(s.Split(4, 0, {4}));                          // out: i.0 i.1 j
  ok(s.Annotate(4, 0, IterAnnotation::kParallel));
  ok(s.ComputeAt(3, 4, 0));
  ok(s.Split(4, 2, {8}));
  ok(s.Annotate(4, 3, IterAnnotation::kVectorize));
  return s;
}

// The elementwise chain fused into one vectorized, parallel nest.
inline schedule::State FusedChain(int64_t rows, int64_t cols) {
  schedule::State s(ElementwiseChainDag(rows, cols));
  auto ok = [](absl::Status st) { TF_CHECK(st.ok(), std::string(st.message()).c_str()); };
  ok(s.ComputeInline(2));
  ok(s.ComputeInline(3));
  ok(s.Fuse(4, {0, 1}));
  ok(s.Split(4, 0, {8}));
  ok(s.Annotate(4, 0, schedule::IterAnnotation::kParallel));
  ok(s.Annotate(4, 1, schedule::IterAnnotation::kVectorize));
  return s;
}

}  // namespace tunefarm::testing
