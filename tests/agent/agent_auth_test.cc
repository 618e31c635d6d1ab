// The token rule on the agent: every DeviceAgent method called without the token or with a
// wrong one gets UNAUTHENTICATED, and nothing happens: no kernel stored, no kernel run.
#include <gtest/gtest.h>

#include "proto/health_client.h"
#include "tests/agent/agent_fixture.h"
#include "tests/farm/method_probe.h"

namespace tunefarm::agent::testing {
namespace {

using namespace std::chrono_literals;

const std::string kDeviceAgent = std::string(v1::DeviceAgent::service_full_name());
const std::string kMarker = std::string(AGENT_MARKER_DIR) + "/side_effect";

class AgentAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<AgentProcess>> agent = AgentProcess::Start();
    ASSERT_TRUE(agent.ok()) << agent.status();
    agent_ = std::move(*agent);
  }

  std::unique_ptr<AgentProcess> agent_;
};

TEST_F(AgentAuth, EveryMethodRejectsAMissingOrWrongToken) {
  for (const std::optional<std::string>& token :
       {std::optional<std::string>(), std::optional<std::string>("wrong-token"),
        std::optional<std::string>("agent-test-toke"), std::optional<std::string>("")}) {
    const auto results = tunefarm::testing::CallEveryMethod(agent_->channel(), kDeviceAgent, token);
    ASSERT_EQ(results.size(), 3u);  // Upload, Measure, Info
    for (const auto& [method, status] : results) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED)
          << method << " with " << token.value_or("no token");
    }
  }
}

TEST_F(AgentAuth, TheRightTokenPassesEveryMethodsCheck) {
  const auto results = tunefarm::testing::CallEveryMethod(agent_->channel(), kDeviceAgent, kToken);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& [method, status] : results) {
    EXPECT_NE(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << method;
  }
  EXPECT_TRUE(results.at("Info").ok());
  EXPECT_TRUE(results.at("Measure").ok());  // no candidates: nothing to do
  EXPECT_EQ(results.at("Upload").error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

// Only this test may touch the marker: ctest runs the other tests of this suite in parallel
// processes, and a SetUp that removed it raced with the control below.
TEST_F(AgentAuth, RejectedCallsStoreNothingAndRunNothing) {
  RemoveFile(kMarker);
  AgentClient intruder(agent_->channel(), "wrong-token");
  const std::string kernel = ReadBinary(AGENT_KERNEL_SIDE_EFFECT);

  absl::StatusOr<v1::UploadReply> up = intruder.Upload(kernel);
  EXPECT_TRUE(absl::IsUnauthenticated(up.status())) << up.status();
  absl::StatusOr<v1::InfoReply> info = agent_->client().Info();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->cached_kernels(), 0);
  EXPECT_TRUE(absl::IsUnauthenticated(intruder.Info().status()));

  // Stored by the owner, the side-effect kernel is then sent to Measure by the intruder.
  const std::string sha = UploadFile(agent_->client(), AGENT_KERNEL_SIDE_EFFECT).value();
  absl::StatusOr<std::vector<v1::MeasureResult>> results =
      intruder.MeasureAll(OneCandidate(1, sha, "vadd"));
  EXPECT_TRUE(absl::IsUnauthenticated(results.status())) << results.status();
  EXPECT_FALSE(FileExists(kMarker)) << "a call with a wrong token ran a kernel";

  // The control: with the token the same request runs the kernel, which leaves its marker.
  absl::StatusOr<v1::MeasureResult> r = MeasureOne(agent_->client(), OneCandidate(2, sha, "vadd"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_NONE) << r->message();
  EXPECT_TRUE(FileExists(kMarker));
}

TEST_F(AgentAuth, HealthNeedsNoToken) {
  absl::StatusOr<bool> serving = wire::CheckHealth(agent_->channel(), kDeviceAgent, 5s);
  ASSERT_TRUE(serving.ok()) << serving.status();
  EXPECT_TRUE(*serving);
}

}  // namespace
}  // namespace tunefarm::agent::testing
