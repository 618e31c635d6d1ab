// The tuning profile: stages add up, and a timer nested in another pauses it, so that the
// stages of one thread sum to its wall time (tuner/tuning_profile.h).
#include "tuner/tuning_profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tuner/tuning_profile_table.h"

namespace tunefarm::tuner {
namespace {

using namespace std::chrono_literals;

TEST(TuningProfile, NestedStagesAreExclusive) {
  TuningProfile& profile = TuningProfile::Global();
  profile.Reset();
  const auto start = std::chrono::steady_clock::now();
  {
    StageTimer outer(TuningStage::kSampleReplay);
    std::this_thread::sleep_for(20ms);
    {
      StageTimer inner(TuningStage::kLower);
      std::this_thread::sleep_for(40ms);
    }
    std::this_thread::sleep_for(20ms);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const StageTotal outer = profile.Get(TuningStage::kSampleReplay), inner = profile.Get(TuningStage::kLower);
  EXPECT_EQ(outer.count, 1);
  EXPECT_EQ(inner.count, 1);
  EXPECT_GE(inner.seconds, 0.040);
  EXPECT_GE(outer.seconds, 0.040);
  // Exclusive: the outer stage does not count the inner one's 40 ms again.
  EXPECT_LE(outer.seconds + inner.seconds, wall + 1e-3);
  EXPECT_LT(outer.seconds, wall - 0.035);
}

TEST(TuningProfile, AddAndResetAndNames) {
  TuningProfile& profile = TuningProfile::Global();
  profile.Reset();
  profile.Add(TuningStage::kMeasure, 0.5);
  profile.Add(TuningStage::kMeasure, 0.25, 2);
  profile.Add(TuningStage::kQueueWait, 1.0);
  profile.Add(TuningStage::kQueueWait, -0.75, 0);  // a correction: time only, no run
  EXPECT_NEAR(profile.Get(TuningStage::kMeasure).seconds, 0.75, 1e-9);
  EXPECT_EQ(profile.Get(TuningStage::kMeasure).count, 3);
  EXPECT_NEAR(profile.Get(TuningStage::kQueueWait).seconds, 0.25, 1e-9);
  EXPECT_EQ(profile.Get(TuningStage::kQueueWait).count, 1);
  profile.Reset();
  EXPECT_EQ(profile.Get(TuningStage::kMeasure).count, 0);
  for (int s = 0; s < static_cast<int>(TuningStage::kCount); ++s)
    EXPECT_NE(TuningStageName(static_cast<TuningStage>(s)), "?");
}

TEST(TuningProfile, TableGivesEachStagePerTrialAndShare) {
  TuningProfile& profile = TuningProfile::Global();
  profile.Reset();
  profile.Add(TuningStage::kMeasure, 6.0, 4);
  profile.Add(TuningStage::kCodegen, 2.0, 5);
  const std::string table = FormatStageTable(profile, 4, 10.0);
  profile.Reset();
  using ::testing::HasSubstr;
  EXPECT_THAT(table, HasSubstr("4 trials in 10.0 s: 24.0 trials per minute"));
  // 6 s over 4 trials is 1500 ms a trial, 60% of the wall time, in 4 runs.
  EXPECT_THAT(table, HasSubstr("  measurement             6.00     1500.0   60.0%        4\n"));
  EXPECT_THAT(table, HasSubstr("  LLVM codegen            2.00      500.0   20.0%        5\n"));
  // 2 s of the 10 are in no stage.
  EXPECT_THAT(table, HasSubstr("  (not in a stage)        2.00      500.0   20.0%\n"));
  // Builds side by side: stages sum beyond the wall time, and the table says so.
  profile.Add(TuningStage::kCodegen, 12.0, 5);
  EXPECT_THAT(FormatStageTable(profile, 4, 10.0), HasSubstr("(stages sum to 12.0 s over threads"));
  profile.Reset();
}

}  // namespace
}  // namespace tunefarm::tuner
