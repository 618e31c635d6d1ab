// Runs a lowered `out = A * B + bias` kernel (tests/common/test_dags.h GemmBiasDag) on seeded
// random inputs and returns its max abs difference from the reference (1e30 when it fails to
// build); for the codegen tests that vary how the GEMM is scheduled.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/codegen/kernel_runner.h"
#include "tests/common/test_dags.h"

namespace tunefarm::codegen::testing {

inline float GemmBiasError(const tir::PrimFunc& f, Backend backend, int threads, int64_t m, int64_t n, int64_t k) {
  auto runner = KernelRunner::Create({f}, backend);
  if (!runner) return 1e30f;
  auto a = tunefarm::testing::RandomFloats(m * k, 1), w = tunefarm::testing::RandomFloats(k * n, 2),
       bias = tunefarm::testing::RandomFloats(n, 3);
  Array<float> A(m * k), W(k * n), B(n), C(m * n);
  std::copy(a.begin(), a.end(), A.data());
  std::copy(w.begin(), w.end(), W.data());
  std::copy(bias.begin(), bias.end(), B.data());
  std::fill(C.data(), C.data() + m * n, NAN);
  EXPECT_EQ(runner->Run(f.name, {A.data(), W.data(), B.data(), C.data()}, threads), 0);
  std::vector<float> out(C.data(), C.data() + m * n);
  return tunefarm::testing::MaxAbsDiff(out, tunefarm::testing::GemmBiasReference(a, w, bias, m, n, k));
}

}  // namespace tunefarm::codegen::testing
