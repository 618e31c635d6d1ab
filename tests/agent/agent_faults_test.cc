// The acceptance case of the agent: one agent process survives each kind of faulty kernel,
// reports it with the right error kind, and then still measures a good kernel correctly.
#include <gtest/gtest.h>

#include <chrono>

#include "tests/agent/agent_fixture.h"

namespace tunefarm::agent::testing {
namespace {

using Clock = std::chrono::steady_clock;

class AgentFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<AgentProcess>> agent = AgentProcess::Start();
    ASSERT_TRUE(agent.ok()) << agent.status();
    agent_ = std::move(*agent);
    good_ = Upload(AGENT_KERNEL_GOOD);
    pid_ = agent_->process().pid();
  }

  std::string Upload(const char* path) {
    absl::StatusOr<std::string> sha = UploadFile(agent_->client(), path);
    EXPECT_TRUE(sha.ok()) << path << ": " << sha.status();
    return sha.value_or("");
  }

  // Measures `entry` of `sha` against the good reference.
  v1::MeasureResult Measure(const std::string& sha, const std::string& entry,
                            int32_t timeout_ms = 5000, bool check = true) {
    const v1::MeasureRequest request =
        OneCandidate(++id_, sha, entry, check ? good_ : "", check ? "vadd_ref" : "", timeout_ms);
    absl::StatusOr<v1::MeasureResult> result = MeasureOne(agent_->client(), request);
    EXPECT_TRUE(result.ok()) << entry << ": " << result.status();
    if (!result.ok()) return {};
    EXPECT_EQ(result->id(), id_);
    return *result;
  }

  // The same agent process, alive, measures the good kernel correctly.
  void ExpectGoodStillMeasures(const std::string& after) {
    SCOPED_TRACE("after " + after);
    ASSERT_TRUE(agent_->Running());
    EXPECT_EQ(agent_->process().pid(), pid_);
    const v1::MeasureResult result = Measure(good_, "vadd");
    EXPECT_EQ(result.error_kind(), v1::ERROR_KIND_NONE) << result.message();
    EXPECT_TRUE(result.correct());
    EXPECT_EQ(result.max_abs_error(), 0);
    ASSERT_EQ(result.costs_sec_size(), 3);  // one per repeat
    for (double cost : result.costs_sec()) EXPECT_GT(cost, 0);
    EXPECT_GE(result.number(), 2);
  }

  std::unique_ptr<AgentProcess> agent_;
  std::string good_;
  pid_t pid_ = 0;
  uint64_t id_ = 1000;
};

TEST_F(AgentFaults, SurvivesEachFaultyKernelAndThenMeasuresAGoodOneCorrectly) {
  ExpectGoodStillMeasures("nothing");
  const std::string crash = Upload(AGENT_KERNEL_CRASH);
  const std::string spin = Upload(AGENT_KERNEL_SPIN);
  const std::string hog = Upload(AGENT_KERNEL_HOG);
  const std::string wrong = Upload(AGENT_KERNEL_WRONG);
  const std::string foreign = Upload(AGENT_KERNEL_FOREIGN);

  v1::MeasureResult r = Measure(crash, "vadd");
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_CRASH) << r.message();
  EXPECT_EQ(r.signal(), 11);
  EXPECT_NE(r.message().find("SIGSEGV"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("running the candidate"), std::string::npos) << r.message();
  ExpectGoodStillMeasures("a segfault");

  const Clock::time_point start = Clock::now();
  r = Measure(spin, "vadd", /*timeout_ms=*/1000);
  const auto elapsed = Clock::now() - start;
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_TIMEOUT) << r.message();
  EXPECT_GE(elapsed, std::chrono::milliseconds(1000));
  EXPECT_LE(elapsed, std::chrono::milliseconds(2000));  // the limit + 1 s
  ExpectGoodStillMeasures("an infinite loop");

  r = Measure(hog, "hog", 5000, /*check=*/false);
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_OUT_OF_MEMORY) << r.message();
  EXPECT_NE(r.message().find("17179869184 bytes"), std::string::npos) << r.message();
  ExpectGoodStillMeasures("a 16 GiB workspace");

  r = Measure(wrong, "vadd_ret7");
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_RUNTIME_ERROR) << r.message();
  EXPECT_EQ(r.exit_code(), 7);
  ExpectGoodStillMeasures("a kernel returning 7");

  r = Measure(foreign, "vadd");
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_LOAD) << r.message();
  EXPECT_NE(r.message().find("refused before loading"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("aarch64"), std::string::npos) << r.message();
  ExpectGoodStillMeasures("a kernel for another CPU");

  r = Measure(wrong, "vadd_off");
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_WRONG_RESULT) << r.message();
  EXPECT_FALSE(r.correct());
  EXPECT_NEAR(r.max_abs_error(), 0.25, 1e-6);
  EXPECT_GT(r.max_rel_error(), 0);
  EXPECT_NE(r.message().find("c[100]"), std::string::npos) << r.message();
  EXPECT_EQ(r.costs_sec_size(), 0);  // wrong is never fast
  ExpectGoodStillMeasures("a wrong result");
}

TEST_F(AgentFaults, AnElementNeverWrittenKeepsItsNaNAndFails) {
  const v1::MeasureResult r = Measure(Upload(AGENT_KERNEL_WRONG), "vadd_skip");
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_WRONG_RESULT) << r.message();
  EXPECT_TRUE(std::isinf(r.max_abs_error()));
  EXPECT_NE(r.message().find("c[4095]: got nan"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("1 of 4096"), std::string::npos) << r.message();
}

TEST_F(AgentFaults, AbortAndExitAreReportedAsCrashes) {
  const std::string crash = Upload(AGENT_KERNEL_CRASH);
  v1::MeasureResult r = Measure(crash, "vadd_abort");
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_CRASH) << r.message();
  EXPECT_EQ(r.signal(), 6);
  r = Measure(crash, "vadd_exit");
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_CRASH) << r.message();
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_NE(r.message().find("without a result"), std::string::npos) << r.message();
  ExpectGoodStillMeasures("abort and exit");
}

TEST_F(AgentFaults, UnknownKernelsAndEntriesAreNamed) {
  const std::string unknown(64, 'a');
  v1::MeasureResult r = Measure(unknown, "vadd");
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_NOT_FOUND);
  EXPECT_NE(r.message().find(unknown), std::string::npos) << r.message();
  EXPECT_EQ(r.started_unix_us(), 0);  // nothing ran

  r = Measure(good_, "no_such_entry");
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_LOAD);
  EXPECT_NE(r.message().find("no entry \"no_such_entry\" (entries: vadd, vadd_ref)"),
            std::string::npos)
      << r.message();
}

TEST_F(AgentFaults, AReferenceWithAnotherSignatureIsRefused) {
  const std::string hog = Upload(AGENT_KERNEL_HOG);
  v1::MeasureRequest request = OneCandidate(1, good_, "vadd", hog, "hog_mmap");
  absl::StatusOr<v1::MeasureResult> r = MeasureOne(agent_->client(), request);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_LOAD);
  EXPECT_NE(r->message().find("take 3 and 1 arguments"), std::string::npos) << r->message();
}

}  // namespace
}  // namespace tunefarm::agent::testing
