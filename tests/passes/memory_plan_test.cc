// Memory planner: hand-made cases and random call sequences checked by brute force.
#include "compiler/passes/memory_plan.h"

#include <random>

#include "tests/passes/plan_checker.h"

namespace tunefarm::passes {
namespace {
using testing::CheckPlan;

TEST(MemoryPlanTest, ChainReusesBuffers) {
  // in → a → b → c → out: a and c can share bytes, b cannot share with a or c.
  std::vector<PlanValue> v = {{.bytes = 100, .pinned = true}, {.bytes = 1000}, {.bytes = 1000}, {.bytes = 1000},
                              {.bytes = 100, .pinned = true}};
  std::vector<PlanCall> calls = {{{0, 1}}, {{1, 2}}, {{2, 3}}, {{3, 4}}};
  auto plan = PlanMemory(v, calls);
  ASSERT_TRUE(plan.ok()) << plan.status();
  CheckPlan(v, calls, *plan);
  EXPECT_EQ(plan->offsets[1], plan->offsets[3]);
  EXPECT_EQ(plan->peak_live_bytes, 128 + 1024 + 1024 + 128);
  EXPECT_EQ(plan->arena_bytes, plan->peak_live_bytes);
  EXPECT_EQ(plan->naive_bytes, 128 * 2 + 1024 * 3);
}

TEST(MemoryPlanTest, ViewsExtendTheirRootAndExternalsAreIgnored) {
  // 1 is produced by call 0; 2 views 1 and is read by call 3, so 1 lives through call 3.
  std::vector<PlanValue> v = {{.bytes = 64, .pinned = true}, {.bytes = 640}, {.bytes = 640, .alias_of = 1},
                              {.bytes = 640}, {.bytes = 640}, {.bytes = 640, .pinned = true},
                              {.bytes = 4096, .external = true}};
  std::vector<PlanCall> calls = {{{0, 6, 1}}, {{0, 3}}, {{3, 4}}, {{2, 4, 5}}};
  auto plan = PlanMemory(v, calls);
  ASSERT_TRUE(plan.ok()) << plan.status();
  CheckPlan(v, calls, *plan);
  EXPECT_EQ(plan->offsets[2], plan->offsets[1]);
  EXPECT_EQ(plan->offsets[6], -1);
  EXPECT_NE(plan->offsets[1], plan->offsets[3]);
  EXPECT_NE(plan->offsets[1], plan->offsets[4]);
}

TEST(MemoryPlanTest, PartsOfAConcatComputedInPlaceLieInsideIt) {
  // 3 is the concat of 1 (written by call 0) and 2 (call 1), read by call 2: 1 and 2 are ranges
  // of 3, which lives from call 0; 0, read by calls 0 and 1, must not share 3's bytes.
  std::vector<PlanValue> v = {{.bytes = 256}, {.bytes = 128, .alias_of = 3}, {.bytes = 192, .alias_of = 3, .alias_offset = 128},
                              {.bytes = 320}, {.bytes = 64, .pinned = true}};
  std::vector<PlanCall> calls = {{{0, 1}}, {{0, 2}}, {{3, 4}}};
  auto plan = PlanMemory(v, calls);
  ASSERT_TRUE(plan.ok()) << plan.status();
  CheckPlan(v, calls, *plan);
  EXPECT_EQ(plan->offsets[1], plan->offsets[3]);
  EXPECT_EQ(plan->offsets[2], plan->offsets[3] + 128);
  EXPECT_TRUE(plan->offsets[0] + 256 <= plan->offsets[3] || plan->offsets[3] + 320 <= plan->offsets[0]);
  // A part that would run past the end of its whole is refused.
  v[2].alias_offset = 192;
  auto bad = PlanMemory(v, calls);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("does not lie inside"), std::string::npos) << bad.status();
}

TEST(MemoryPlanTest, RejectsBadIds) {
  EXPECT_FALSE(PlanMemory({{.bytes = 1, .alias_of = 5}}, {}).ok());
  EXPECT_FALSE(PlanMemory({{.bytes = 1, .alias_of = 0}}, {}).ok());  // a cycle
  EXPECT_FALSE(PlanMemory({{.bytes = 1}}, {{{3}}}).ok());
}

// Random graphs in execution order: each call reads 1-3 earlier values (sometimes a view) and
// writes one new value; some values are pinned or external.
TEST(MemoryPlanTest, RandomSequencesNeverShareLiveBytes) {
  std::mt19937 rng(42);
  double worst = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<PlanValue> values;
    std::vector<PlanCall> calls;
    int inputs = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < inputs; ++i) values.push_back({.bytes = 1 + static_cast<int64_t>(rng() % 5000), .pinned = true});
    values.push_back({.bytes = 4096, .external = true});
    int num_calls = 1 + static_cast<int>(rng() % 40);
    for (int c = 0; c < num_calls; ++c) {
      PlanCall call;
      int reads = 1 + static_cast<int>(rng() % 3);
      for (int r = 0; r < reads; ++r) {
        // Mostly recent values, as in real graphs, sometimes far back (skip connections).
        int n = static_cast<int>(values.size());
        int pick = rng() % 4 == 0 ? static_cast<int>(rng() % n) : std::max(0, n - 1 - static_cast<int>(rng() % 3));
        call.args.push_back(pick);
      }
      if (rng() % 5 == 0) {  // a view of one argument, read by a later call
        int root = call.args[0];
        if (!values[root].external) values.push_back({.bytes = values[root].bytes, .alias_of = root});
      }
      int out = static_cast<int>(values.size());
      values.push_back({.bytes = static_cast<int64_t>(rng() % 20000), .pinned = rng() % 10 == 0});
      call.args.push_back(out);
      calls.push_back(call);
    }
    values.back().pinned = true;
    auto plan = PlanMemory(values, calls);
    ASSERT_TRUE(plan.ok()) << plan.status();
    SCOPED_TRACE(round);
    CheckPlan(values, calls, *plan);
    if (plan->peak_live_bytes > 0) worst = std::max(worst, double(plan->arena_bytes) / plan->peak_live_bytes);
  }
  std::printf("random sequences: worst arena/peak %.3f\n", worst);
}

}  // namespace
}  // namespace tunefarm::passes
