// The tracker with three agents, all real processes on loopback: the acceptance scenarios of
// the farm (acquire, release, queue order, revocation, crashed client, tracker restart).
#include <signal.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <thread>

#include "absl/strings/numbers.h"
#include "proto/credentials.h"
#include "proto/tracker_client.h"
#include "tests/farm/child_process.h"

namespace tunefarm::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr char kToken[] = "farm-test-token";
// Heartbeats every 200 ms: five may be missed on a loaded 2-core machine before a drop.
constexpr int kAgentTimeoutMs = 1000;

class FarmTracker : public ::testing::Test {
 protected:
  void SetUp() override {
    token_file_ = dir_.WriteFile("token", std::string(kToken) + "\n", 0600);
    ASSERT_NO_FATAL_FAILURE(StartTracker(0));
    StartAgent("cpu-a", "cpu", 7001);
    StartAgent("cpu-b", "cpu", 7002);
    StartAgent("arm", "arm", 7003);
    ASSERT_TRUE(WaitForDevices(3)) << "three agents did not register";
  }

  void StartTracker(int port) {
    absl::StatusOr<std::unique_ptr<ChildProcess>> tracker = ChildProcess::Spawn(
        {TUNEFARM_TRACKER_BIN, "--host", "127.0.0.1", "--port", std::to_string(port),
         "--token-file", token_file_, "--agent-timeout-ms", std::to_string(kAgentTimeoutMs)});
    ASSERT_TRUE(tracker.ok()) << tracker.status();
    tracker_ = std::move(*tracker);
    absl::StatusOr<std::string> line = tracker_->ReadLine(20s);
    ASSERT_TRUE(line.ok()) << "tracker printed no address: " << line.status();
    const std::string prefix = "tunefarm tracker listening on 127.0.0.1:";
    ASSERT_EQ(line->rfind(prefix, 0), 0u) << *line;
    ASSERT_TRUE(absl::SimpleAtoi(line->substr(prefix.size()), &port_)) << *line;
    ASSERT_GT(port_, 0);
    address_ = "127.0.0.1:" + std::to_string(port_);
    channel_ = wire::MakeChannel(address_, {}, 100ms).value();
    client_ = std::make_unique<wire::TrackerClient>(channel_, kToken, 5s);
  }

  void StartAgent(const std::string& name, const std::string& key, int port) {
    absl::StatusOr<std::unique_ptr<ChildProcess>> agent = ChildProcess::Spawn(
        {TUNEFARM_FAKE_AGENT_BIN, "--tracker", address_, "--key", key, "--address",
         "127.0.0.1:" + std::to_string(port), "--name", name, "--cpu-model", "Fake CPU " + key,
         "--cores", "8", "--max-backoff-ms", "100"},
        {std::string("TUNEFARM_TOKEN=") + kToken});
    ASSERT_TRUE(agent.ok()) << agent.status();
    agents_[name] = std::move(*agent);
  }

  // Polls ListDevices until `done` holds; false after `timeout`.
  bool WaitFor(const std::function<bool(const v1::ListDevicesReply&)>& done,
               std::chrono::milliseconds timeout = 10s) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      absl::StatusOr<v1::ListDevicesReply> list = client_->ListDevices();
      if (list.ok() && done(*list)) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  bool WaitForDevices(int n) {
    return WaitFor([n](const v1::ListDevicesReply& r) { return r.devices_size() == n; });
  }

  std::unique_ptr<wire::Lease> Acquire(const std::string& key, int priority, const std::string& name) {
    v1::AcquireRequest request;
    request.set_key(key);
    request.set_priority(priority);
    request.set_client_name(name);
    return client_->Acquire(request);
  }

  // The next event of `lease` must be QUEUED; returns its position (-1 otherwise).
  static int QueuedPosition(wire::Lease& lease) {
    absl::StatusOr<v1::AcquireEvent> event = lease.NextEvent(10s);
    return event.ok() && event->has_queued() ? event->queued().position() : -1;
  }

  const v1::DeviceInfo* Device(const v1::ListDevicesReply& list, const std::string& address) {
    for (const v1::DeviceInfo& d : list.devices()) {
      if (d.address() == address) return &d;
    }
    return nullptr;
  }

  TempDir dir_;
  std::string token_file_;
  std::unique_ptr<ChildProcess> tracker_;
  std::map<std::string, std::unique_ptr<ChildProcess>> agents_;
  int port_ = 0;
  std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<wire::TrackerClient> client_;
};

TEST_F(FarmTracker, ThreeAgentsRegisterWithTheirFacts) {
  v1::ListDevicesReply list = client_->ListDevices().value();
  ASSERT_EQ(list.pools_size(), 2);
  EXPECT_EQ(list.pools(0).key(), "arm");
  EXPECT_EQ(list.pools(0).devices(), 1);
  EXPECT_EQ(list.pools(1).key(), "cpu");
  EXPECT_EQ(list.pools(1).devices(), 2);
  const v1::DeviceInfo* arm = Device(list, "127.0.0.1:7003");
  ASSERT_NE(arm, nullptr);
  EXPECT_EQ(arm->key(), "arm");
  EXPECT_EQ(arm->agent_name(), "arm");
  EXPECT_EQ(arm->facts().cpu_model(), "Fake CPU arm");
  EXPECT_EQ(arm->facts().physical_cores(), 8);
  EXPECT_EQ(arm->state(), v1::DEVICE_STATE_IDLE);
  EXPECT_EQ(arm->capacity(), 1);
}

TEST_F(FarmTracker, AgentsStayRegisteredByHeartbeat) {
  // Longer than the timeout: only heartbeats can have kept the same registrations alive.
  std::this_thread::sleep_for(std::chrono::milliseconds(kAgentTimeoutMs * 3 / 2));
  v1::ListDevicesReply list = client_->ListDevices().value();
  ASSERT_EQ(list.devices_size(), 3);
  for (const v1::DeviceInfo& d : list.devices()) {
    EXPECT_GE(d.registered_ms_ago(), kAgentTimeoutMs * 3 / 2) << d.address() << " registered again";
    EXPECT_LT(d.last_seen_ms_ago(), kAgentTimeoutMs) << d.address();
  }
}

TEST_F(FarmTracker, AcquireGrantsAndClosingTheStreamReleases) {
  std::unique_ptr<wire::Lease> first = Acquire("arm", 0, "first");
  absl::StatusOr<v1::AcquireEvent::Granted> granted = first->WaitGranted(10s);
  ASSERT_TRUE(granted.ok()) << granted.status();
  EXPECT_EQ(granted->device_address(), "127.0.0.1:7003");
  EXPECT_EQ(granted->device_key(), "arm");
  EXPECT_FALSE(granted->lease_id().empty());
  v1::ListDevicesReply list = client_->ListDevices().value();
  const v1::DeviceInfo* arm = Device(list, "127.0.0.1:7003");
  ASSERT_NE(arm, nullptr);
  EXPECT_EQ(arm->state(), v1::DEVICE_STATE_BUSY);
  ASSERT_EQ(arm->holders_size(), 1);
  EXPECT_EQ(arm->holders(0), "first");

  std::unique_ptr<wire::Lease> second = Acquire("arm", 0, "second");
  EXPECT_EQ(QueuedPosition(*second), 1);
  first->Release();
  granted = second->WaitGranted(10s);
  ASSERT_TRUE(granted.ok()) << granted.status();
  EXPECT_EQ(granted->device_address(), "127.0.0.1:7003");
  second->Release();
  EXPECT_TRUE(WaitFor([&](const v1::ListDevicesReply& r) {
    const v1::DeviceInfo* d = Device(r, "127.0.0.1:7003");
    return d != nullptr && d->state() == v1::DEVICE_STATE_IDLE;
  }));
}

TEST_F(FarmTracker, LeasesOfAPoolSpreadOverItsDevices) {
  std::unique_ptr<wire::Lease> a = Acquire("cpu", 0, "a");
  std::unique_ptr<wire::Lease> b = Acquire("cpu", 0, "b");
  absl::StatusOr<v1::AcquireEvent::Granted> ga = a->WaitGranted(10s);
  absl::StatusOr<v1::AcquireEvent::Granted> gb = b->WaitGranted(10s);
  ASSERT_TRUE(ga.ok() && gb.ok());
  EXPECT_NE(ga->device_address(), gb->device_address());
  std::unique_ptr<wire::Lease> c = Acquire("cpu", 0, "c");
  EXPECT_EQ(QueuedPosition(*c), 1);
}

TEST_F(FarmTracker, QueueServesPriorityThenFifoUnderContention) {
  std::unique_ptr<wire::Lease> holder = Acquire("arm", 0, "holder");
  ASSERT_TRUE(holder->WaitGranted(10s).ok());
  // Each waiter is confirmed queued before the next asks, so arrival order is known.
  std::unique_ptr<wire::Lease> low1 = Acquire("arm", 0, "low1");
  ASSERT_EQ(QueuedPosition(*low1), 1);
  std::unique_ptr<wire::Lease> low2 = Acquire("arm", 0, "low2");
  ASSERT_EQ(QueuedPosition(*low2), 2);
  std::unique_ptr<wire::Lease> high = Acquire("arm", 5, "high");
  ASSERT_EQ(QueuedPosition(*high), 1);
  std::unique_ptr<wire::Lease> low3 = Acquire("arm", 0, "low3");
  ASSERT_EQ(QueuedPosition(*low3), 4);
  EXPECT_EQ(client_->ListDevices("arm").value().pools(0).waiting(), 4);

  holder->Release();
  std::vector<wire::Lease*> expected = {high.get(), low1.get(), low2.get(), low3.get()};
  for (size_t i = 0; i < expected.size(); ++i) {
    absl::StatusOr<v1::AcquireEvent::Granted> granted = expected[i]->WaitGranted(10s);
    ASSERT_TRUE(granted.ok()) << "waiter " << i << ": " << granted.status();
    for (size_t j = i + 1; j < expected.size(); ++j) {
      EXPECT_TRUE(absl::IsDeadlineExceeded(expected[j]->NextEvent(0ms).status()))
          << "waiter " << j << " heard something before waiter " << i << " released";
    }
    expected[i]->Release();
  }
}

TEST_F(FarmTracker, LeaseIsRevokedWhenItsAgentIsKilled) {
  std::unique_ptr<wire::Lease> lease = Acquire("arm", 0, "victim");
  ASSERT_TRUE(lease->WaitGranted(10s).ok());
  std::unique_ptr<wire::Lease> waiter = Acquire("arm", 0, "waiter");
  ASSERT_EQ(QueuedPosition(*waiter), 1);

  agents_["arm"]->Signal(SIGKILL);
  absl::StatusOr<v1::AcquireEvent> event = lease->NextEvent(10s);
  ASSERT_TRUE(event.ok()) << event.status();
  ASSERT_TRUE(event->has_revoked()) << event->DebugString();
  EXPECT_NE(event->revoked().reason().find("silent"), std::string::npos) << event->revoked().reason();
  EXPECT_TRUE(absl::IsOutOfRange(lease->NextEvent(10s).status()));  // the stream ended

  v1::ListDevicesReply list = client_->ListDevices().value();
  EXPECT_EQ(list.devices_size(), 2);
  EXPECT_EQ(Device(list, "127.0.0.1:7003"), nullptr);
  // The waiter is not revoked: it keeps its place until a device of the key comes back.
  EXPECT_TRUE(absl::IsDeadlineExceeded(waiter->NextEvent(0ms).status()));
  StartAgent("arm-2", "arm", 7004);
  absl::StatusOr<v1::AcquireEvent::Granted> granted = waiter->WaitGranted(10s);
  ASSERT_TRUE(granted.ok()) << granted.status();
  EXPECT_EQ(granted->device_address(), "127.0.0.1:7004");
}

TEST_F(FarmTracker, CrashedClientFreesItsDeviceAtOnce) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> crasher = ChildProcess::Spawn(
      {TUNEFARM_FAKE_CLIENT_BIN, "--tracker", address_, "--key", "arm", "--name", "crasher"},
      {std::string("TUNEFARM_TOKEN=") + kToken});
  ASSERT_TRUE(crasher.ok()) << crasher.status();
  absl::StatusOr<std::string> line = (*crasher)->ReadLine(20s);
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(*line, "granted " + Device(client_->ListDevices().value(), "127.0.0.1:7003")->agent_id() +
                       " 127.0.0.1:7003");
  std::unique_ptr<wire::Lease> waiter = Acquire("arm", 0, "waiter");
  ASSERT_EQ(QueuedPosition(*waiter), 1);

  const auto killed = Clock::now();
  (*crasher)->Signal(SIGKILL);
  absl::StatusOr<v1::AcquireEvent::Granted> granted = waiter->WaitGranted(10s);
  ASSERT_TRUE(granted.ok()) << granted.status();
  const auto freed_after = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed);
  // "At once" on loopback is milliseconds; the bound leaves room for a loaded machine and is
  // still far below the ~30 s keepalive that would free it if closing the stream did not.
  EXPECT_LT(freed_after.count(), 2000) << "device freed only after " << freed_after.count() << " ms";
}

TEST_F(FarmTracker, AgentsComeBackAfterATrackerRestart) {
  std::unique_ptr<wire::Lease> lease = Acquire("arm", 0, "before-restart");
  ASSERT_TRUE(lease->WaitGranted(10s).ok());
  std::vector<std::string> old_ids;
  const v1::ListDevicesReply before = client_->ListDevices().value();
  for (const v1::DeviceInfo& d : before.devices()) old_ids.push_back(d.agent_id());

  tracker_->Signal(SIGKILL);
  ASSERT_TRUE(tracker_->Wait(10s).ok());
  // The holder learns its lease is gone with the tracker.
  EXPECT_TRUE(absl::IsUnavailable(lease->NextEvent(10s).status()));

  const int port = port_;
  ASSERT_NO_FATAL_FAILURE(StartTracker(port));
  ASSERT_EQ(port_, port);
  ASSERT_TRUE(WaitForDevices(3)) << "agents did not re-register with the new tracker";
  const v1::ListDevicesReply after = client_->ListDevices().value();
  for (const v1::DeviceInfo& d : after.devices()) {
    EXPECT_EQ(std::count(old_ids.begin(), old_ids.end(), d.agent_id()), 0) << "stale id " << d.agent_id();
  }
  std::unique_ptr<wire::Lease> again = Acquire("arm", 0, "after-restart");
  EXPECT_TRUE(again->WaitGranted(10s).ok());
}

TEST_F(FarmTracker, AgentStoppedBySigtermLeavesAtOnce) {
  std::unique_ptr<wire::Lease> lease = Acquire("arm", 0, "holder");
  ASSERT_TRUE(lease->WaitGranted(10s).ok());
  agents_["arm"]->Signal(SIGTERM);
  EXPECT_EQ(agents_["arm"]->Wait(10s).value_or(-1), 0);
  absl::StatusOr<v1::AcquireEvent> event = lease->NextEvent(10s);
  ASSERT_TRUE(event.ok() && event->has_revoked()) << event.status();
  EXPECT_EQ(event->revoked().reason(), "agent left the farm");
  EXPECT_EQ(client_->ListDevices().value().devices_size(), 2);
}

TEST_F(FarmTracker, TrackerStopsCleanlyOnSigtermRevokingLeases) {
  std::unique_ptr<wire::Lease> holder = Acquire("arm", 0, "holder");
  ASSERT_TRUE(holder->WaitGranted(10s).ok());
  std::unique_ptr<wire::Lease> waiter = Acquire("arm", 0, "waiter");
  ASSERT_EQ(QueuedPosition(*waiter), 1);

  tracker_->Signal(SIGTERM);
  EXPECT_EQ(tracker_->Wait(10s).value_or(-1), 0);
  absl::StatusOr<v1::AcquireEvent> event = holder->NextEvent(10s);
  ASSERT_TRUE(event.ok() && event->has_revoked()) << event.status();
  EXPECT_EQ(event->revoked().reason(), "tracker stopping");
  absl::StatusOr<v1::AcquireEvent::Granted> never = waiter->WaitGranted(10s);
  EXPECT_TRUE(absl::IsUnavailable(never.status())) << never.status();
}

TEST_F(FarmTracker, DevicesCommandPrintsJsonAndTable) {
  const std::string env = std::string("TUNEFARM_TOKEN=") + kToken;
  auto json_run = ChildProcess::Spawn({TUNEFARM_TRACKER_BIN, "devices", "--tracker", address_, "--json"}, {env});
  ASSERT_TRUE(json_run.ok());
  absl::StatusOr<std::string> json_text = (*json_run)->ReadToEnd(20s);
  ASSERT_TRUE(json_text.ok()) << json_text.status();
  EXPECT_EQ((*json_run)->Wait(10s).value_or(-1), 0);
  const nlohmann::json json = nlohmann::json::parse(*json_text);
  ASSERT_EQ(json["devices"].size(), 3u);
  EXPECT_EQ(json["pools"][0]["key"], "arm");
  EXPECT_EQ(json["devices"][0]["address"], "127.0.0.1:7003");
  EXPECT_EQ(json["devices"][0]["facts"]["cpu_model"], "Fake CPU arm");

  auto table_run = ChildProcess::Spawn({TUNEFARM_TRACKER_BIN, "devices", "--tracker", address_, "--key", "cpu"}, {env});
  ASSERT_TRUE(table_run.ok());
  const std::string table = (*table_run)->ReadToEnd(20s).value_or("");
  EXPECT_EQ((*table_run)->Wait(10s).value_or(-1), 0);
  EXPECT_NE(table.find("127.0.0.1:7001"), std::string::npos) << table;
  EXPECT_EQ(table.find("127.0.0.1:7003"), std::string::npos) << table;

  auto refused = ChildProcess::Spawn({TUNEFARM_TRACKER_BIN, "devices", "--tracker", address_},
                                     {"TUNEFARM_TOKEN=wrong"});
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ((*refused)->ReadToEnd(20s).value_or("x"), "");
  EXPECT_EQ((*refused)->Wait(10s).value_or(-1), 1);
}

}  // namespace
}  // namespace tunefarm::testing
