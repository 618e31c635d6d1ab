#include "device_agent/output_compare.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <limits>
#include <vector>

#include "device_agent/kernel_timing.h"

namespace tunefarm::agent {
namespace {

deploy::ArgInfo Out(int64_t n, const char* dtype = "float32") {
  deploy::ArgInfo arg;
  arg.name = "y";
  arg.dtype = dtype;
  arg.shape = {n};
  arg.role = deploy::ArgRole::kOut;
  return arg;
}

TEST(OutputCompare, PassesWithinAtolPlusRtolTimesReference) {
  const std::vector<float> ref = {1.0f, -2.0f, 100.0f, 0.0f};
  const std::vector<float> out = {1.0f, -2.01f, 100.5f, 0.0f};
  Comparison c;
  CompareOutput(Out(4), out.data(), ref.data(), /*atol=*/0.011, /*rtol=*/0.005, &c);
  EXPECT_TRUE(c.correct);
  EXPECT_EQ(c.elements, 4);
  EXPECT_NEAR(c.max_abs_error, 0.5, 1e-6);
  EXPECT_NEAR(c.max_rel_error, 0.005, 1e-6);

  Comparison strict;
  CompareOutput(Out(4), out.data(), ref.data(), 0.001, 0.001, &strict);
  EXPECT_FALSE(strict.correct);
  EXPECT_EQ(strict.mismatches, 2);
  EXPECT_EQ(strict.first_mismatch, "y[1]: got -2.00999999, expected -2");
}

TEST(OutputCompare, NaNOnOneSideIsAMismatchOnBothSidesNot) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Comparison c;
  const std::vector<float> ref = {nan, inf, 1.0f};
  const std::vector<float> out = {nan, inf, 1.0f};
  CompareOutput(Out(3), out.data(), ref.data(), 0, 0, &c);
  EXPECT_TRUE(c.correct);
  EXPECT_EQ(c.max_abs_error, 0);

  const std::vector<float> poisoned = {nan, inf, nan};
  CompareOutput(Out(3), poisoned.data(), ref.data(), 1, 1, &c);
  EXPECT_FALSE(c.correct);
  EXPECT_TRUE(std::isinf(c.max_abs_error));
  EXPECT_EQ(c.first_mismatch, "y[2]: got nan, expected 1");
  EXPECT_EQ(c.elements, 6);  // accumulated over both outputs
}

TEST(OutputCompare, IntegersCompareExactlyWithZeroTolerance) {
  const std::vector<int32_t> ref = {1, 2, 3};
  const std::vector<int32_t> out = {1, 2, 4};
  Comparison c;
  CompareOutput(Out(3, "int32"), out.data(), ref.data(), 0, 0, &c);
  EXPECT_FALSE(c.correct);
  EXPECT_EQ(c.max_abs_error, 1);
}

// Spins (not sleeps) for `d`, so the time is spent running, as a kernel's would be.
void BusyWait(std::chrono::microseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

TEST(KernelTiming, GrowsNumberUntilARepeatLastsMinRepeatMs) {
  int calls = 0;
  const auto sleepy = [&] {
    ++calls;
    BusyWait(std::chrono::microseconds(200));
    return 0;
  };
  const Timing t = TimeRuns(sleepy, 1, 3, /*min_repeat_ms=*/10);
  ASSERT_EQ(t.costs_sec.size(), 3u);
  // The last repeat ran `number` calls and lasted at least min_repeat_ms; each call busy-waits
  // 200 us, so number grew from 1 to about 50. (No upper bounds and no exact counts: other
  // processes may preempt a call.)
  EXPECT_GE(t.costs_sec.back() * t.number, 10e-3 * 0.999);
  for (double cost : t.costs_sec) EXPECT_GE(cost, 190e-6);
  EXPECT_GE(calls, t.number + 2);  // the calibration calls plus at least one call per repeat
  EXPECT_EQ(t.error_code, 0);
}

TEST(KernelTiming, WithoutMinRepeatMsNumberStaysAsAsked) {
  int calls = 0;
  const Timing t = TimeRuns([&] { return ++calls, 0; }, 4, 2, 0);
  EXPECT_EQ(t.number, 4);
  EXPECT_EQ(calls, 8);
  EXPECT_EQ(t.costs_sec.size(), 2u);
}

// With a flush before every run, each run is timed alone: the flush (here a 2 ms wait) is
// called before every run and never counted.
TEST(KernelTiming, BeforeRunIsCalledBeforeEveryRunAndNotTimed) {
  int calls = 0, flushes = 0;
  const Timing t = TimeRuns([&] { return ++calls, 0; }, 3, 4, 0, [&] { BusyWait(std::chrono::microseconds(2000)), ++flushes; });
  EXPECT_EQ(calls, 12);
  EXPECT_EQ(flushes, 12);
  ASSERT_EQ(t.costs_sec.size(), 4u);
  // Counted, the flush would make every repeat's cost over 2 ms; a run does nothing, so unless
  // every one of the four repeats was preempted for 2 ms, one is far below.
  EXPECT_LT(*std::min_element(t.costs_sec.begin(), t.costs_sec.end()), 2e-3);
}

// A first repeat slower than stop_above_sec per run is the only one; one as fast goes on.
TEST(KernelTiming, AFirstRepeatSlowerThanTheStopIsTheOnlyOne) {
  int calls = 0;
  const auto slow = [&] {
    ++calls;
    BusyWait(std::chrono::microseconds(500));
    return 0;
  };
  const Timing stopped = TimeRuns(slow, 2, 5, 0, nullptr, /*stop_above_sec=*/100e-6);
  ASSERT_EQ(stopped.costs_sec.size(), 1u);
  EXPECT_GE(stopped.costs_sec[0], 490e-6);
  EXPECT_EQ(calls, 2);
  calls = 0;
  const Timing kept = TimeRuns(slow, 2, 5, 0, nullptr, /*stop_above_sec=*/10.0);
  EXPECT_EQ(kept.costs_sec.size(), 5u);
  EXPECT_EQ(calls, 10);
}

TEST(KernelTiming, StopsAtTheFirstError) {
  int calls = 0;
  const Timing t = TimeRuns([&] { return ++calls == 5 ? 9 : 0; }, 3, 10, 0);
  EXPECT_EQ(t.error_code, 9);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(t.costs_sec.size(), 1u);
}

}  // namespace
}  // namespace tunefarm::agent
