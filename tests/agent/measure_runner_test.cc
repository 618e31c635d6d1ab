// The mapping from what the helper did to the proto's error kinds, without running anything.
#include "device_agent/measure_runner.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace tunefarm::agent {
namespace {

HelperRun Died(int signal, const std::string& output = "") {
  HelperRun run;
  run.signal = signal;
  run.output = output;
  run.started_unix_us = 10;
  run.finished_unix_us = 20;
  return run;
}

TEST(MeasureRunner, ASignalIsACrashNamingTheStage) {
  absl::StatusOr<v1::MeasureResult> r =
      ResultOfRun(4, Died(SIGSEGV, StageLine(kStageLoad) + StageLine(kStageRun)), 1000);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->id(), 4u);
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_CRASH);
  EXPECT_EQ(r->signal(), SIGSEGV);
  EXPECT_EQ(r->message(), "crashed with signal 11 (SIGSEGV) while running the candidate");
  EXPECT_EQ(r->started_unix_us(), 10);
  EXPECT_EQ(r->finished_unix_us(), 20);
}

TEST(MeasureRunner, KillsAreTimeoutsOrOutOfMemory) {
  HelperRun timed_out = Died(SIGKILL, StageLine(kStageTime));
  timed_out.timed_out = true;
  absl::StatusOr<v1::MeasureResult> r = ResultOfRun(1, timed_out, 1500);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_TIMEOUT);
  EXPECT_EQ(r->message(),
            "no result within the timeout of 1500 ms while timing the candidate; the helper was "
            "killed");

  r = ResultOfRun(1, Died(SIGKILL), 1500);  // not by the agent
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_OUT_OF_MEMORY);
  r = ResultOfRun(1, Died(SIGXCPU), 1500);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_TIMEOUT);

  HelperRun cancelled = Died(SIGKILL);
  cancelled.cancelled = true;
  EXPECT_TRUE(absl::IsCancelled(ResultOfRun(1, cancelled, 1500).status()));
}

TEST(MeasureRunner, TheHelpersOutcomeIsTakenAsReported) {
  MeasureOutcome outcome;
  outcome.kind = OutcomeKind::kRuntimeError;
  outcome.kernel_code = 7;
  outcome.message = "returned error 7";
  HelperRun run;
  run.exited = true;
  run.output = StageLine(kStageRun) + OutcomeLine(outcome);
  absl::StatusOr<v1::MeasureResult> r = ResultOfRun(2, run, 1000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_RUNTIME_ERROR);
  EXPECT_EQ(r->exit_code(), 7);

  outcome = MeasureOutcome();
  outcome.checked = true;
  outcome.correct = true;
  outcome.number = 4;
  outcome.costs_sec = {1e-3, 2e-3};
  run.output = OutcomeLine(outcome);
  run.exited = false;  // a library destructor crashed after the report: the report stands
  run.signal = SIGSEGV;
  r = ResultOfRun(3, run, 1000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_NONE);
  EXPECT_TRUE(r->correct());
  EXPECT_EQ(r->number(), 4);
  EXPECT_EQ(r->costs_sec_size(), 2);

  outcome.kind = OutcomeKind::kBadRequest;
  run.output = OutcomeLine(outcome);
  EXPECT_TRUE(absl::IsInternal(ResultOfRun(3, run, 1000).status()));

  HelperRun exited;
  exited.exited = true;
  exited.exit_code = 3;
  r = ResultOfRun(5, exited, 1000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_CRASH);
  EXPECT_EQ(r->exit_code(), 3);
}

TEST(MeasureRunner, SpecsFillDefaultsAndLimits) {
  v1::MeasureOptions options;
  MeasureLimits limits;
  limits.memory_limit_bytes = 123;
  MeasureSpec spec = MakeMeasureSpec(options, limits, "", "", 2500);
  EXPECT_EQ(spec.number, 1);
  EXPECT_EQ(spec.repeat, 1);
  EXPECT_EQ(spec.threads, 1);
  EXPECT_EQ(spec.atol, kDefaultAtol);
  EXPECT_EQ(spec.rtol, kDefaultRtol);
  EXPECT_EQ(spec.memory_limit_bytes, 123);
  EXPECT_EQ(spec.cpu_limit_sec, 4);  // ceil(2.5 s x 1 thread) + 1
  options.set_threads(4);
  options.set_atol(0.5);
  spec = MakeMeasureSpec(options, limits, "", "", 2500);
  EXPECT_EQ(spec.cpu_limit_sec, 11);
  EXPECT_EQ(spec.atol, 0.5);
  EXPECT_EQ(spec.rtol, 0);
}

}  // namespace
}  // namespace tunefarm::agent
