#include "device_agent/measure_protocol.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tunefarm::agent {
namespace {

TEST(MeasureProtocol, ArgumentsRoundTrip) {
  MeasureSpec spec;
  spec.reference_path = "/tmp/r with space.so";
  spec.reference_entry = "conv_ref";
  spec.reference_outputs_path = "/tmp/r with space.so.outputs";
  spec.number = 3;
  spec.repeat = 5;
  spec.min_repeat_ms = 100;
  spec.threads = 8;
  spec.seed = 18446744073709551615ull;
  spec.atol = 0.1;
  spec.rtol = 1e-7;
  spec.memory_limit_bytes = int64_t{1} << 33;
  spec.cpu_limit_sec = 11;
  spec.batch_cpu_limit_sec = 41;
  spec.result_fd = 3;
  spec.flush_cache = true;
  spec.stop_above_sec = 3.7e-4;
  const std::vector<std::string> args = MeasureArgs(spec);
  std::vector<const char*> argv = {"tunefarm-measure"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  deploy::Result<MeasureSpec> parsed = ParseMeasureArgs(static_cast<int>(argv.size()), argv.data());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->reference_path, spec.reference_path);
  EXPECT_EQ(parsed->reference_entry, "conv_ref");
  EXPECT_EQ(parsed->reference_outputs_path, spec.reference_outputs_path);
  EXPECT_EQ(parsed->seed, spec.seed);
  EXPECT_EQ(parsed->atol, 0.1);  // exact: printed with 17 digits
  EXPECT_EQ(parsed->rtol, 1e-7);
  EXPECT_EQ(parsed->memory_limit_bytes, spec.memory_limit_bytes);
  EXPECT_EQ(parsed->threads, 8);
  EXPECT_EQ(parsed->cpu_limit_sec, 11);
  EXPECT_EQ(parsed->batch_cpu_limit_sec, 41);
  EXPECT_TRUE(parsed->flush_cache);
  EXPECT_EQ(parsed->stop_above_sec, 3.7e-4);
}

TEST(MeasureProtocol, JobLinesRoundTripAndBadOnesAreNamed) {
  const CandidateJob job{"/cache/k with \"quotes\".so", "conv_3"};
  const std::string line = JobLine(job);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // one line, whatever the path holds
  deploy::Result<CandidateJob> parsed = ParseJobLine(line.substr(0, line.size() - 1));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->kernel_path, job.kernel_path);
  EXPECT_EQ(parsed->entry, job.entry);
  EXPECT_FALSE(ParseJobLine("{\"kernel\":\"k.so\"}").ok());
  EXPECT_FALSE(ParseJobLine("not json").ok());
}

TEST(MeasureProtocol, OneCandidatesReportEndsAfterItsOutcome) {
  MeasureOutcome outcome;
  outcome.number = 3;
  const std::string first = StageLine(kStageCheck) + StageLine(kStageTime) + OutcomeLine(outcome);
  const std::string text = first + RetireLine("the candidate left 2 threads") + StageLine(kStageLoad);
  EXPECT_EQ(OutcomeEnd(text), first.size());
  EXPECT_EQ(OutcomeEnd(StageLine(kStageRun)), std::string_view::npos);
  // An outcome line still being written is not an outcome yet.
  EXPECT_EQ(OutcomeEnd(first.substr(0, first.size() - 1)), std::string_view::npos);
  const HelperReport rest = ParseHelperReport(text.substr(first.size()));
  EXPECT_EQ(rest.retired, "the candidate left 2 threads");
  EXPECT_EQ(rest.last_stage, kStageLoad);
  EXPECT_EQ(rest.error, "");
}

TEST(MeasureProtocol, BadArgumentsAreNamed) {
  const char* unknown[] = {"m", "--number", "2", "--speed", "3"};
  deploy::Result<MeasureSpec> r = ParseMeasureArgs(5, unknown);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "unknown option --speed");
  const char* bad[] = {"m", "--repeat", "1", "--number", "x"};
  r = ParseMeasureArgs(5, bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "option --number: bad value \"x\"");
  const char* missing[] = {"m", "--reference", "r.so"};
  EXPECT_FALSE(ParseMeasureArgs(3, missing).ok());  // without --reference-entry
}

TEST(MeasureProtocol, OutcomeAndStagesRoundTrip) {
  MeasureOutcome outcome;
  outcome.kind = OutcomeKind::kWrongResult;
  outcome.message = "y[2]: got nan";
  outcome.checked = true;
  outcome.max_abs_error = std::numeric_limits<double>::infinity();
  outcome.max_rel_error = 0.5;
  outcome.number = 7;
  outcome.costs_sec = {1e-3, 2e-3};
  const std::string text = StageLine(kStageLoad) + StageLine(kStageRun) + OutcomeLine(outcome);
  const HelperReport report = ParseHelperReport(text);
  EXPECT_EQ(report.last_stage, kStageRun);
  EXPECT_EQ(report.error, "");
  ASSERT_TRUE(report.outcome.has_value());
  EXPECT_EQ(report.outcome->kind, OutcomeKind::kWrongResult);
  EXPECT_EQ(report.outcome->message, outcome.message);
  EXPECT_TRUE(std::isinf(report.outcome->max_abs_error));
  EXPECT_EQ(report.outcome->max_rel_error, 0.5);
  EXPECT_EQ(report.outcome->costs_sec, outcome.costs_sec);
}

TEST(MeasureProtocol, AStageWithoutOutcomeAndGarbageNeverThrow) {
  HelperReport report = ParseHelperReport(StageLine(kStageRun) + "{\"stage\":\"ti");
  EXPECT_EQ(report.last_stage, kStageRun);
  EXPECT_FALSE(report.outcome.has_value());
  EXPECT_NE(report.error, "");
  report = ParseHelperReport("{\"outcome\":\"ok\",\"number\":\"many\"}\n\xff\xfe\n");
  EXPECT_FALSE(report.outcome.has_value());
  EXPECT_NE(report.error, "");
  report = ParseHelperReport("{\"outcome\":\"splendid\"}\n");
  EXPECT_FALSE(report.outcome.has_value());
  EXPECT_NE(report.error.find("splendid"), std::string::npos);
}

}  // namespace
}  // namespace tunefarm::agent
