// One helper per Measure call: a clean batch runs in a single helper process, and a candidate
// that crashes, hangs, or changes its helper costs a fresh helper for the rest of the batch,
// with each failure reported for the candidate that caused it.
#include <gtest/gtest.h>

#include "tests/agent/agent_fixture.h"

namespace tunefarm::agent::testing {
namespace {

class AgentBatch : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<AgentProcess>> agent = AgentProcess::Start();
    ASSERT_TRUE(agent.ok()) << agent.status();
    agent_ = std::move(*agent);
    good_ = Upload(AGENT_KERNEL_GOOD);
  }

  std::string Upload(const char* path) {
    absl::StatusOr<std::string> sha = UploadFile(agent_->client(), path);
    EXPECT_TRUE(sha.ok()) << path << ": " << sha.status();
    return sha.value_or("");
  }

  // A request checked against the good reference, candidates numbered from 1.
  v1::MeasureRequest Batch(const std::vector<std::pair<std::string, std::string>>& kernels,
                           int32_t timeout_ms = 5000) {
    v1::MeasureRequest request = OneCandidate(1, kernels[0].first, kernels[0].second, good_,
                                              "vadd_ref", timeout_ms);
    for (size_t i = 1; i < kernels.size(); ++i) {
      v1::Candidate& candidate = *request.add_candidates();
      candidate.set_id(i + 1);
      candidate.mutable_kernel()->set_sha256(kernels[i].first);
      candidate.mutable_kernel()->set_entry(kernels[i].second);
    }
    return request;
  }

  int64_t HelpersStarted() {
    absl::StatusOr<v1::InfoReply> info = agent_->client().Info();
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? info->helpers_started() : -1;
  }

  // Every result, in the order sent, ids 1..n; their measurements do not overlap.
  std::vector<v1::MeasureResult> MeasureBatch(const v1::MeasureRequest& request) {
    absl::StatusOr<std::vector<v1::MeasureResult>> results = agent_->client().MeasureAll(request);
    EXPECT_TRUE(results.ok()) << results.status();
    if (!results.ok()) return {};
    EXPECT_EQ(results->size(), static_cast<size_t>(request.candidates_size()));
    for (size_t i = 0; i < results->size(); ++i) {
      EXPECT_EQ((*results)[i].id(), i + 1);
      if (i > 0) {
        EXPECT_LE((*results)[i - 1].finished_unix_us(), (*results)[i].started_unix_us());
      }
    }
    return *results;
  }

  static void ExpectCorrect(const v1::MeasureResult& r) {
    SCOPED_TRACE("candidate " + std::to_string(r.id()));
    EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_NONE) << r.message();
    EXPECT_TRUE(r.correct());
    EXPECT_EQ(r.max_abs_error(), 0);
    EXPECT_EQ(r.costs_sec_size(), 3);
  }

  std::unique_ptr<AgentProcess> agent_;
  std::string good_;
};

TEST_F(AgentBatch, ACleanBatchRunsInOneHelper) {
  const int64_t before = HelpersStarted();
  const std::vector<v1::MeasureResult> results =
      MeasureBatch(Batch({{good_, "vadd"}, {good_, "vadd_ref"}, {good_, "vadd"}, {good_, "vadd"},
                          {good_, "vadd_ref"}, {good_, "vadd"}}));
  ASSERT_EQ(results.size(), 6u);
  for (const v1::MeasureResult& r : results) ExpectCorrect(r);
  EXPECT_EQ(HelpersStarted() - before, 1);
}

TEST_F(AgentBatch, ACrashAndAHangAreTheirCandidatesAloneAndTheOthersAreMeasured) {
  const std::string crash = Upload(AGENT_KERNEL_CRASH);
  const std::string spin = Upload(AGENT_KERNEL_SPIN);
  const int64_t before = HelpersStarted();
  const std::vector<v1::MeasureResult> results = MeasureBatch(
      Batch({{good_, "vadd"}, {crash, "vadd"}, {spin, "vadd"}, {good_, "vadd"}}, 1000));
  ASSERT_EQ(results.size(), 4u);
  ExpectCorrect(results[0]);
  EXPECT_EQ(results[1].error_kind(), v1::ERROR_KIND_CRASH) << results[1].message();
  EXPECT_EQ(results[1].signal(), 11);
  EXPECT_NE(results[1].message().find("running the candidate"), std::string::npos)
      << results[1].message();
  EXPECT_EQ(results[2].error_kind(), v1::ERROR_KIND_TIMEOUT) << results[2].message();
  EXPECT_NE(results[2].message().find("1000 ms"), std::string::npos) << results[2].message();
  // The hang's own time, not the crash's or the helper's before it.
  EXPECT_GE(results[2].finished_unix_us() - results[2].started_unix_us(), 1000000);
  ExpectCorrect(results[3]);
  // The first helper died with the crash, the second was killed at the deadline.
  EXPECT_EQ(HelpersStarted() - before, 3);
}

TEST_F(AgentBatch, ACandidateThatChangesItsHelperRetiresItWithoutFailing) {
  const std::string leaky = Upload(AGENT_KERNEL_LEAKY);
  const int64_t before = HelpersStarted();
  const std::vector<v1::MeasureResult> results = MeasureBatch(Batch(
      {{leaky, "vadd_thread"}, {good_, "vadd"}, {leaky, "vadd_handler"}, {good_, "vadd"}}));
  ASSERT_EQ(results.size(), 4u);
  for (const v1::MeasureResult& r : results) ExpectCorrect(r);
  // A thread left running, then a signal handler: each retires the helper it ran in.
  EXPECT_EQ(HelpersStarted() - before, 3);
}

TEST_F(AgentBatch, OutOfMemoryRetiresTheHelperAndTheNextIsMeasured) {
  const std::string hog = Upload(AGENT_KERNEL_HOG);
  v1::MeasureRequest request = OneCandidate(1, hog, "hog");
  v1::Candidate& next = *request.add_candidates();
  next.set_id(2);
  next.mutable_kernel()->set_sha256(good_);
  next.mutable_kernel()->set_entry("vadd");
  const int64_t before = HelpersStarted();
  const std::vector<v1::MeasureResult> results = MeasureBatch(request);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].error_kind(), v1::ERROR_KIND_OUT_OF_MEMORY) << results[0].message();
  EXPECT_EQ(results[1].error_kind(), v1::ERROR_KIND_NONE) << results[1].message();
  EXPECT_EQ(HelpersStarted() - before, 2);
}

TEST_F(AgentBatch, AKernelThatOverwritesItsInputsLeavesTheNextOnesIntact) {
  const std::string leaky = Upload(AGENT_KERNEL_LEAKY);
  const std::vector<v1::MeasureResult> results = MeasureBatch(
      Batch({{leaky, "vadd_scribble"}, {good_, "vadd"}, {leaky, "vadd_scribble"}}));
  ASSERT_EQ(results.size(), 3u);
  for (const v1::MeasureResult& r : results) ExpectCorrect(r);
}

TEST_F(AgentBatch, HalfALineFromAKernelDoesNotHideItsOutcome) {
  const std::string leaky = Upload(AGENT_KERNEL_LEAKY);
  const int64_t before = HelpersStarted();
  const std::vector<v1::MeasureResult> results =
      MeasureBatch(Batch({{leaky, "vadd_chatter"}, {good_, "vadd"}}));
  ASSERT_EQ(results.size(), 2u);
  for (const v1::MeasureResult& r : results) ExpectCorrect(r);  // not a timeout
  EXPECT_EQ(HelpersStarted() - before, 1);
}

}  // namespace
}  // namespace tunefarm::agent::testing
