// PrimFuncs shared by several tests (built by hand with the tir builders, as the lowering
// from schedules would).
#pragma once

#include <cstdint>
#include <string>

#include "compiler/tir/stmt.h"

namespace tunefarm::codegen::testing {

// C[M,N] = A[M,K] * B[K,N] (float32): a parallel loop over rows, C's row zeroed by a
// vectorized loop over j, then for each k a vectorized j loop of C += A*B.
tir::PrimFunc GemmFunc(const std::string& name, int64_t m, int64_t n, int64_t k);

// out[i] = f(in[i]) for every intrinsic (pow uses a second input), in one vectorized and one
// scalar loop per function; dtype float32 or float64. Used for imports/determinism checks.
tir::PrimFunc AllMathFunc(const std::string& name, te::DType t, int64_t n);

// SHA-256 of the .so built from a fixed set of kernels (GEMM, every intrinsic in float32 and
// float64) for a fixed x86 target. The determinism test compares this
// across two processes.
std::string DeterminismProbeSha256();

}  // namespace tunefarm::codegen::testing
