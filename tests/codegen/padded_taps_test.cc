// Skipped padded taps in generated code (compiler/tir/skip_padded_taps.h): a conv with its
// padding inlined and a register tile, its row test on the kernel-row loop and its column test
// inside unrolled loops, built for the host and run on 1 and 2 threads. It must compute the
// reference, and skip the border taps for real (a weight that is inf there changes nothing).
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ops/conv2d.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/common/dag_evaluator.h"
#include "tests/common/test_dags.h"

namespace tunefarm::codegen::testing {
namespace {

using schedule::IterAnnotation;
using schedule::State;

constexpr int64_t kC = 5, kHw = 7, kK = 16;

// conv2d NCHW 3x3 pad 1: stages x w pad conv2d.
std::shared_ptr<const te::ComputeDag> PaddedConvDag() {
  te::DagBuilder b;
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, kC, kHw, kHw});
  auto w = b.Placeholder("w", te::DType::kFloat32, {kK, kC, 3, 3}, true);
  return b.Build({ops::Conv2dNchw(b, x, w, p)});
}

// The padding inlined; conv2d: n k.0 oh (fused,
// parallel) ow k.1, with a local tile of ow x k.1 per output row filled over rc ry rx, rx and ow
// unrolled, k.1 the vector lanes.
State TiledPaddedConv() {
  State s(PaddedConvDag());
  const int conv = 3, local = 3, out = 4;
  EXPECT_TRUE(s.ComputeInline(2).ok());
  EXPECT_TRUE(s.CacheWrite(conv, "local").ok());              // x w pad conv2d.local conv2d
  EXPECT_TRUE(s.Split(out, 1, {8}).ok());                     // n k.0 k.1 oh ow
  EXPECT_TRUE(s.Reorder(out, {0, 1, 3, 4, 2}).ok());          // n k.0 oh ow k.1
  EXPECT_TRUE(s.ComputeAt(local, out, 2).ok());               // a tile per output row
  EXPECT_TRUE(s.Split(local, 1, {8}).ok());                   // n k.0 k.1 oh ow rc ry rx
  EXPECT_TRUE(s.Reorder(local, {0, 1, 3, 5, 6, 7, 4, 2}).ok());  // n k.0 oh rc ry rx ow k.1
  EXPECT_TRUE(s.Annotate(local, 5, IterAnnotation::kUnroll).ok());
  EXPECT_TRUE(s.Annotate(local, 6, IterAnnotation::kUnroll).ok());
  EXPECT_TRUE(s.Annotate(local, 7, IterAnnotation::kVectorize).ok());
  EXPECT_TRUE(s.Fuse(out, {0, 1, 2}).ok());
  EXPECT_TRUE(s.Annotate(out, 0, IterAnnotation::kParallel).ok());
  return s;
}

// The same conv accumulating in its output: n k.0 oh ow (fused, parallel) rc ry rx k.1, rx
// unrolled and k.1 the vector lanes. Its column test stays innermost and becomes a select of the
// update (a blend with a scalar test), so the output stays in registers across the reduction.
State PaddedConvInMemory() {
  State s(PaddedConvDag());
  const int conv = 3;
  EXPECT_TRUE(s.ComputeInline(2).ok());
  EXPECT_TRUE(s.Split(conv, 1, {8}).ok());                           // n k.0 k.1 oh ow rc ry rx
  EXPECT_TRUE(s.Reorder(conv, {0, 1, 3, 4, 5, 6, 7, 2}).ok());       // n k.0 oh ow rc ry rx k.1
  EXPECT_TRUE(s.Annotate(conv, 6, IterAnnotation::kUnroll).ok());
  EXPECT_TRUE(s.Annotate(conv, 7, IterAnnotation::kVectorize).ok());
  EXPECT_TRUE(s.Fuse(conv, {0, 1, 2, 3}).ok());
  EXPECT_TRUE(s.Annotate(conv, 0, IterAnnotation::kParallel).ok());
  return s;
}

// Runs `s` (x w -> y) built through the JIT and as a .so at 1 and 2 threads: it must match the
// reference, and with every filter's top-left weight inf, the outputs whose top-left tap lies on
// the padding (row 0, column 0) stay finite while the others, which multiply a real x by inf, do
// not.
void CheckPaddedConv(const State& s) {
  auto f = tir::Lower(s, "conv");
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<float> x = tunefarm::testing::RandomFloats(kC * kHw * kHw, 1),
                     w = tunefarm::testing::RandomFloats(kK * kC * 9, 2);
  std::vector<double> x64(x.begin(), x.end()), w64(w.begin(), w.end());
  const std::vector<double> ref = tunefarm::testing::DagEvaluator(*s.original_dag()).Run({x64, w64})[0];
  for (Backend backend : {Backend::kJit, Backend::kSharedObject}) {
    auto runner = KernelRunner::Create({*f}, backend);
    ASSERT_NE(runner, nullptr);
    for (int threads : {1, 2}) {
      Array<float> X(x.size()), W(w.size()), Y(ref.size());
      std::copy(x.begin(), x.end(), X.data());
      std::copy(w.begin(), w.end(), W.data());
      std::fill(Y.data(), Y.data() + ref.size(), NAN);
      ASSERT_EQ(runner->Run("conv", {X.data(), W.data(), Y.data()}, threads), 0);
      double worst = 0;
      for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(Y[i] - ref[i]));
      EXPECT_LT(worst, 1e-4) << BackendName(backend) << ", " << threads << " threads\n" << tir::PrimFuncToString(*f);

      for (int64_t i = 0; i < kK * kC; ++i) W[i * 9] = INFINITY;
      std::fill(Y.data(), Y.data() + ref.size(), NAN);
      ASSERT_EQ(runner->Run("conv", {X.data(), W.data(), Y.data()}, threads), 0);
      for (int64_t k = 0; k < kK; ++k)
        for (int64_t r = 0; r < kHw; ++r)
          for (int64_t c = 0; c < kHw; ++c)
            EXPECT_EQ(std::isfinite(Y[(k * kHw + r) * kHw + c]), r == 0 || c == 0)
                << "output row " << r << ", column " << c << " of filter " << k << ", " << BackendName(backend);
    }
  }
}

TEST(PaddedTaps, ATiledConvWithInlinedPaddingComputesTheReferenceAndSkipsBorderTaps) {
  CheckPaddedConv(TiledPaddedConv());
}

TEST(PaddedTaps, AConvAccumulatingInItsOutputComputesTheReferenceAndSkipsBorderTaps) {
  CheckPaddedConv(PaddedConvInMemory());
}

}  // namespace
}  // namespace tunefarm::codegen::testing
