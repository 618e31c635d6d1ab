// Cross-thread reductions (tir/lower.cc, StageLowering::CrossThreadReduction): a reduction whose
// innermost reduce loop is bound to threadIdx.x. Each thread reduces its share into a slot of a
// shared buffer, halving steps combine the slots, thread 0 writes the result. Checked against
// the plain DAG evaluator both serially and run as a GPU runs it (InterpretAsGpu: the block's
// threads in turns between barriers), which also shows the barriers are needed.
#include <gtest/gtest.h>

#include <string>

#include "compiler/tir/gpu_interpreter.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/lower.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/gpu_schedules.h"
#include "tests/common/launch_expectations.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;
using schedule::State;

using testing::CrossThreadRowReduce;
using testing::RowReduceDag;

const testing::InterpretFn kAsGpu = [](const PrimFunc& f, const std::vector<void*>& args) {
  return InterpretAsGpu(f, args);
};

TEST(CrossThreadReduction, SumsAndMaximaMatchTheDefinitionRunAsAGpu) {
  // 32 threads over 100 columns (a guarded last step), and 24, not a power of two.
  for (int64_t threads : {32, 24, 1}) {
    for (te::ReduceKind kind : {te::ReduceKind::kSum, te::ReduceKind::kMax}) {
      State s = CrossThreadRowReduce(RowReduceDag(6, 100, kind), threads);
      SCOPED_TRACE(s.ToString());
      EXPECT_LT(testing::InterpretedError(s, 5), 1e-4);
      EXPECT_LT(testing::InterpretedError(s, 6, kAsGpu), 1e-4);
    }
  }
}

TEST(CrossThreadReduction, TheSlotsLiveInSharedMemoryAndTheLaunchHasTheThreads) {
  State s = CrossThreadRowReduce(RowReduceDag(6, 100, te::ReduceKind::kSum), 32);
  absl::StatusOr<PrimFunc> f = Lower(s, "rowsum");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = PrimFuncToString(*f);
  EXPECT_NE(text.find("shared r.red: float32[32]"), std::string::npos) << text;
  testing::ExpectLaunches(*f, 2, {{6, 1, 1}, {32, 1, 1}, 32 * 4, 0});
  // Without barriers between the halving steps, a thread reads a slot another has not added
  // into yet: run as a GPU runs it, the sums are wrong.
  const testing::InterpretFn no_barriers = [](const PrimFunc& g, const std::vector<void*>& args) {
    return InterpretAsGpu(g, args, GpuLimits{}, /*insert_barriers=*/false);
  };
  EXPECT_GT(testing::InterpretedError(s, 7, no_barriers), 1e-3);
}

TEST(CrossThreadReduction, ASpaceLoopInsideTheReductionIsRefused) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {4, 8, 64});
  auto r = b.Reduce("r", te::ReduceKind::kSum, {4, 8}, {64},
                    [&](const te::DagBuilder::Axes& i, const te::DagBuilder::Axes& k) { return x(i[0], i[1], k[0]); });
  State s(b.Build({r}));
  ASSERT_TRUE(s.Split(1, 2, {32}).ok());                // i0 i1 k.0 k.1
  ASSERT_TRUE(s.Reorder(1, {0, 2, 1, 3}).ok());         // i0 k.0 i1 k.1
  ASSERT_TRUE(s.Annotate(1, 3, IterAnnotation::kThreadX).ok());
  absl::StatusOr<PrimFunc> f = Lower(s, "bad");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("inside a cross-thread reduction"), std::string::npos) << f.status();
}

TEST(CrossThreadReduction, AStageComputedInsideTheReductionIsRefused) {
  State s(RowReduceDag(6, 100, te::ReduceKind::kSum));
  ASSERT_TRUE(s.CacheRead(0, "shared", {1}).ok());  // x, x.shared, r, y
  constexpr int r = 2;
  ASSERT_TRUE(s.Split(r, 1, {32}).ok());             // row, col.o, col.i
  ASSERT_TRUE(s.ComputeAt(1, r, 1).ok());            // x.shared at col.o, inside the reduction
  ASSERT_TRUE(s.Annotate(r, 2, IterAnnotation::kThreadX).ok());
  absl::StatusOr<PrimFunc> f = Lower(s, "bad");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("is computed at reduce loop"), std::string::npos) << f.status();
}

}  // namespace
}  // namespace tunefarm::tir
