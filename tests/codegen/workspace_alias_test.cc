// Workspace buffers in generated code: each slot gets its own alias scope, so LLVM may keep a
// value of one slot in a register across stores to another (compiler/codegen/alias_scopes.h).
// The scopes must never change a result: kernels with several slots still match the reference.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/codegen/host_target.h"
#include "compiler/tir/lower.h"
#include "tests/common/count_occurrences.h"
#include "tests/codegen/gemm_bias_run.h"
#include "tests/common/test_dags.h"

namespace tunefarm::codegen::testing {
namespace {

using schedule::IterAnnotation;
using schedule::State;

// out = A * B + bias with A copied to a workspace slot (A.global) and the product C in another:
// C's k loop reads one slot and accumulates into the other. Stages: A A.global B bias C out.
State GemmWithTwoWorkspaceSlots(int64_t m, int64_t n, int64_t k) {
  State s(tunefarm::testing::GemmBiasDag(m, n, k));
  EXPECT_TRUE(s.CacheRead(0, "global", {3}).ok());
  EXPECT_TRUE(s.Annotate(4, 0, IterAnnotation::kParallel).ok());
  EXPECT_TRUE(s.Annotate(5, 1, IterAnnotation::kVectorize).ok());
  return s;
}

TEST(WorkspaceAlias, EveryAccessToASlotIsScopedAgainstTheOtherSlots) {
  auto f = tir::Lower(GemmWithTwoWorkspaceSlots(8, 32, 16), "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  int slots = 0;
  for (const auto& b : f->buffers) slots += b.scope == tir::BufferScope::kWorkspace ? 1 : 0;
  ASSERT_EQ(slots, 2) << tir::PrimFuncToString(*f);
  auto ir = EmitLlvmIr({*f}, HostTarget(), /*optimized=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  // A.global: stored once, loaded once; C: stored twice (init, update), loaded twice (update,
  // out) -> six accesses, each with both lists.
  EXPECT_EQ(tunefarm::testing::CountOccurrences(*ir, "!alias.scope !"), 6) << *ir;
  EXPECT_EQ(tunefarm::testing::CountOccurrences(*ir, "!noalias !"), 6) << *ir;
}

TEST(WorkspaceAlias, OneSlotNeedsNoScopes) {
  State s(tunefarm::testing::GemmBiasDag(8, 32, 16));  // only C is in the workspace
  auto f = tir::Lower(s, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  auto ir = EmitLlvmIr({*f}, HostTarget(), /*optimized=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_EQ(ir->find("!noalias !"), std::string::npos) << *ir;
}

TEST(WorkspaceAlias, KernelsWithSeveralSlotsMatchTheReference) {
  for (Backend backend : {Backend::kJit, Backend::kSharedObject}) {
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{8, 32, 16}, {13, 37, 29}}) {
      auto f = tir::Lower(GemmWithTwoWorkspaceSlots(m, n, k), "gemm");
      ASSERT_TRUE(f.ok()) << f.status();
      for (int threads : {1, 3})
        EXPECT_LT(GemmBiasError(*f, backend, threads, m, n, k), 1e-4f)
            << BackendName(backend) << " " << m << "x" << n << "x" << k << " at " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace tunefarm::codegen::testing
