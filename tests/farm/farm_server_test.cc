// The tracker server in-process: health service, port handling, and a concurrency soak.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "proto/credentials.h"
#include "proto/health_client.h"
#include "proto/tracker_client.h"
#include "tracker/tracker_server.h"

namespace tunefarm::tracker {
namespace {

using namespace std::chrono_literals;
constexpr char kToken[] = "server-test-token";

std::unique_ptr<TrackerServer> StartServer(int port = 0) {
  TrackerServerOptions options;
  options.host = "127.0.0.1";
  options.port = port;
  options.token = kToken;
  absl::StatusOr<std::unique_ptr<TrackerServer>> server = TrackerServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(*server) : nullptr;
}

TEST(FarmServer, HealthServiceReportsServingWithoutAToken) {
  std::unique_ptr<TrackerServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  auto channel = wire::MakeChannel(server->address(), {}).value();
  EXPECT_EQ(wire::CheckHealth(channel, "tunefarm.v1.Tracker", 5s).value_or(false), true);
  EXPECT_EQ(wire::CheckHealth(channel, "", 5s).value_or(false), true);
  EXPECT_TRUE(absl::IsNotFound(wire::CheckHealth(channel, "tunefarm.v1.Nothing", 5s).status()));
}

TEST(FarmServer, ASecondServerOnTheSamePortFailsNamingTheAddress) {
  std::unique_ptr<TrackerServer> first = StartServer();
  ASSERT_NE(first, nullptr);
  TrackerServerOptions options;
  options.host = "127.0.0.1";
  options.port = first->port();
  options.token = kToken;
  absl::StatusOr<std::unique_ptr<TrackerServer>> second = TrackerServer::Start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(first->address()), std::string_view::npos)
      << second.status();
  options.token = "";
  EXPECT_TRUE(absl::IsInvalidArgument(TrackerServer::Start(options).status()));
}

// Many clients acquiring and releasing (some giving up while queued) while agents leave and
// rejoin: afterwards nothing may be held or queued, and every client must have been served.
TEST(FarmServer, ConcurrentAcquireReleaseAndAgentChurnLeaveNothingHeld) {
  std::unique_ptr<TrackerServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  auto channel = wire::MakeChannel(server->address(), {}).value();
  wire::TrackerClient admin(channel, kToken);
  std::vector<std::string> ids(3);
  auto register_agent = [&](int i) {
    v1::RegisterRequest agent;
    agent.set_key("pool");
    agent.set_address("127.0.0.1:" + std::to_string(8000 + i));
    return admin.Register(agent).value().agent_id();
  };
  for (int i = 0; i < 3; ++i) ids[i] = register_agent(i);

  constexpr int kClients = 6;
  constexpr int kCycles = 25;
  std::atomic<int> granted{0};
  std::atomic<bool> stop_churn{false};
  std::vector<int> served(kClients, 0);
  std::thread churn([&] {
    // Agent 0 leaves and rejoins; its holders hear REVOKED and simply retry.
    while (!stop_churn) {
      (void)admin.Unregister(ids[0]);
      ids[0] = register_agent(0);
      std::this_thread::sleep_for(5ms);
    }
  });
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      wire::TrackerClient client(channel, kToken);
      for (int i = 0; i < kCycles; ++i) {
        v1::AcquireRequest want;
        want.set_key("pool");
        want.set_priority(i % 3);
        want.set_client_name("client-" + std::to_string(c));
        std::unique_ptr<wire::Lease> lease = client.Acquire(want);
        if (i % 5 == 4) continue;  // gives up at once, probably while queued
        if (lease->WaitGranted(20s).ok()) {
          ++granted;
          ++served[c];
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  stop_churn = true;
  churn.join();

  for (int c = 0; c < kClients; ++c) EXPECT_GT(served[c], 0) << "client " << c << " starved";
  EXPECT_GE(granted.load(), kClients * kCycles / 2);
  // Releases are processed as the streams' cancellations arrive: wait for them to land.
  v1::ListDevicesReply list;
  for (int i = 0; i < 500; ++i) {
    list = admin.ListDevices().value();
    if (list.pools_size() == 1 && list.pools(0).leased() == 0 && list.pools(0).waiting() == 0) break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(list.pools_size(), 1);
  EXPECT_EQ(list.pools(0).devices(), 3);
  EXPECT_EQ(list.pools(0).leased(), 0);
  EXPECT_EQ(list.pools(0).waiting(), 0);
}

}  // namespace
}  // namespace tunefarm::tracker
