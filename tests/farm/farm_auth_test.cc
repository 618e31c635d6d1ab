// The token rule over every Tracker method, against an in-process server on loopback.
#include <gtest/gtest.h>

#include "proto/credentials.h"
#include "proto/tracker_client.h"
#include "tests/farm/method_probe.h"
#include "tracker/tracker_server.h"

namespace tunefarm::tracker {
namespace {

using namespace std::chrono_literals;
constexpr char kToken[] = "right-token";

class FarmAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    TrackerServerOptions options;
    options.host = "127.0.0.1";
    options.token = kToken;
    absl::StatusOr<std::unique_ptr<TrackerServer>> server = TrackerServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    channel_ = wire::MakeChannel(server_->address(), {}).value();
  }

  std::unique_ptr<TrackerServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

const std::string kTracker = std::string(v1::Tracker::service_full_name());

TEST_F(FarmAuth, EveryTrackerMethodRejectsAMissingToken) {
  const auto results = testing::CallEveryMethod(channel_, kTracker, std::nullopt);
  ASSERT_EQ(results.size(), 5u);  // Register, Heartbeat, Unregister, Acquire, ListDevices
  for (const auto& [method, status] : results) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << method;
    EXPECT_NE(status.error_message().find("missing"), std::string::npos) << method;
  }
}

TEST_F(FarmAuth, EveryTrackerMethodRejectsAWrongToken) {
  for (const std::string wrong : {"wrong-token", "right-toke", "right-token!", ""}) {
    const auto results = testing::CallEveryMethod(channel_, kTracker, wrong);
    ASSERT_EQ(results.size(), 5u);
    for (const auto& [method, status] : results) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << method << " with '" << wrong << "'";
    }
  }
}

TEST_F(FarmAuth, TheRightTokenPassesEveryMethodsCheck) {
  // Empty requests are invalid for most methods, but none may fail the token check.
  const auto results = testing::CallEveryMethod(channel_, kTracker, kToken);
  ASSERT_EQ(results.size(), 5u);
  for (const auto& [method, status] : results) {
    EXPECT_NE(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << method;
  }
  EXPECT_TRUE(results.at("ListDevices").ok());
  EXPECT_EQ(results.at("Acquire").error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(FarmAuth, RejectedCallsChangeNothing) {
  wire::TrackerClient intruder(channel_, "wrong-token");
  wire::TrackerClient owner(channel_, kToken);
  v1::RegisterRequest agent;
  agent.set_key("cpu");
  agent.set_address("127.0.0.1:7001");
  EXPECT_TRUE(absl::IsUnauthenticated(intruder.Register(agent).status()));
  v1::AcquireRequest want;
  want.set_key("cpu");
  std::unique_ptr<wire::Lease> lease = intruder.Acquire(want);
  EXPECT_TRUE(absl::IsUnauthenticated(lease->NextEvent(5s).status()));

  absl::StatusOr<v1::ListDevicesReply> list = owner.ListDevices();
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->devices_size(), 0);
  EXPECT_EQ(list->pools_size(), 0);  // no queued request either

  // And a registered agent cannot be removed or kept alive by someone without the token.
  absl::StatusOr<v1::RegisterReply> reg = owner.Register(agent);
  ASSERT_TRUE(reg.ok()) << reg.status();
  EXPECT_TRUE(absl::IsUnauthenticated(intruder.Unregister(reg->agent_id())));
  EXPECT_TRUE(absl::IsUnauthenticated(intruder.Heartbeat(reg->agent_id())));
  EXPECT_EQ(owner.ListDevices()->devices_size(), 1);
}

}  // namespace
}  // namespace tunefarm::tracker
