#include "tracker/tracker_state.h"

#include <gtest/gtest.h>

#include <thread>

#include "tests/farm/recording_listener.h"

namespace tunefarm::tracker {
namespace {

using testing::RecordingListener;
using namespace std::chrono_literals;

// A TrackerState on a hand-driven clock.
struct FakeClockTracker {
  Clock::time_point now = Clock::time_point() + 1h;
  TrackerState state{Options()};

  TrackerOptions Options() {
    TrackerOptions options;
    options.agent_timeout = 1000ms;
    options.now = [this] { return now; };
    return options;
  }
};

v1::RegisterRequest Agent(const std::string& key, const std::string& address) {
  v1::RegisterRequest request;
  request.set_key(key);
  request.set_address(address);
  request.mutable_facts()->set_cpu_model("Test CPU");
  return request;
}

v1::AcquireRequest Want(const std::string& key) {
  v1::AcquireRequest request;
  request.set_key(key);
  return request;
}

TEST(FarmTrackerState, RegisterRejectsBadRequestsNamingTheField) {
  TrackerOptions options;
  TrackerState state(options);
  absl::StatusOr<v1::RegisterReply> no_key = state.Register(Agent("", "h:1"));
  EXPECT_TRUE(absl::IsInvalidArgument(no_key.status()));
  EXPECT_NE(no_key.status().message().find("key"), std::string_view::npos);
  absl::StatusOr<v1::RegisterReply> no_address = state.Register(Agent("cpu", ""));
  EXPECT_NE(no_address.status().message().find("address"), std::string_view::npos);
  v1::RegisterRequest huge = Agent("cpu", "h:1");
  huge.set_capacity(5000);
  EXPECT_NE(state.Register(huge).status().message().find("capacity"), std::string_view::npos);
  EXPECT_TRUE(absl::IsInvalidArgument(
      state.Acquire(Want(""), "c", std::make_shared<RecordingListener>()).status()));
}

TEST(FarmTrackerState, ADeviceWhoseFactsDifferFromItsPoolsIsRefusedNamingTheFact) {
  FakeClockTracker t;
  ASSERT_TRUE(t.state.Register(Agent("cpu", "h:1")).ok());
  v1::RegisterRequest other_model = Agent("cpu", "h:2");
  other_model.mutable_facts()->set_cpu_model("Other CPU");
  absl::StatusOr<v1::RegisterReply> refused = t.state.Register(other_model);
  ASSERT_TRUE(absl::IsFailedPrecondition(refused.status())) << refused.status();
  EXPECT_NE(refused.status().message().find("cpu_model 'Other CPU' (the pool's: 'Test CPU')"), std::string_view::npos)
      << refused.status();
  EXPECT_NE(refused.status().message().find("key 'cpu'"), std::string_view::npos);
  v1::RegisterRequest more_flags = Agent("cpu", "h:2");
  more_flags.mutable_facts()->add_isa_flags("avx512f");
  EXPECT_NE(t.state.Register(more_flags).status().message().find("ISA flag 'avx512f'"), std::string_view::npos);
  v1::RegisterRequest more_cores = Agent("cpu", "h:2");
  more_cores.mutable_facts()->set_physical_cores(64);
  EXPECT_NE(t.state.Register(more_cores).status().message().find("physical_cores"), std::string_view::npos);

  // Not mixed in: the pool still has one device.
  EXPECT_EQ(t.state.ListDevices("cpu").devices_size(), 1);
  // The same facts join; another key takes anything; the OS may differ; and a device alone in
  // its pool may come back with new facts (an upgraded board).
  v1::RegisterRequest same = Agent("cpu", "h:2");
  same.mutable_facts()->set_os("Linux 6.12");
  EXPECT_TRUE(t.state.Register(same).ok());
  EXPECT_TRUE(t.state.Register(Agent("arm", "h:3")).ok());
  v1::RegisterRequest upgraded = Agent("arm", "h:3");
  upgraded.mutable_facts()->set_cpu_model("Newer CPU");
  EXPECT_TRUE(t.state.Register(upgraded).ok());

  // A pool device restarting at its address as another machine: refused, and its old entry
  // (whose leases talk to a process that is gone) is dropped, not left to be leased.
  v1::RegisterRequest replaced = Agent("cpu", "h:2");
  replaced.mutable_facts()->set_cpu_model("Other CPU");
  EXPECT_TRUE(absl::IsFailedPrecondition(t.state.Register(replaced).status()));
  v1::ListDevicesReply cpu = t.state.ListDevices("cpu");
  ASSERT_EQ(cpu.devices_size(), 1);
  EXPECT_EQ(cpu.devices(0).address(), "h:1");
}

// Two slices of one GPU (MIG) have its name and compute capability, but fewer multiprocessors:
// their kernels' best schedules differ, so they may not share a key.
TEST(FarmTrackerState, AGpuSliceIsNotMixedIntoAPoolOfWholeGpus) {
  FakeClockTracker t;
  auto gpu_agent = [](const std::string& address, int multiprocessors) {
    v1::RegisterRequest request = Agent("h100", address);
    v1::GpuFacts* gpu = request.mutable_facts()->add_gpus();
    gpu->set_name("NVIDIA H100 80GB HBM3");
    gpu->set_compute_capability("9.0");
    gpu->set_multiprocessors(multiprocessors);
    gpu->set_max_shared_memory_per_block(49152);
    return request;
  };
  ASSERT_TRUE(t.state.Register(gpu_agent("h:1", 132)).ok());
  EXPECT_TRUE(t.state.Register(gpu_agent("h:2", 132)).ok());
  absl::StatusOr<v1::RegisterReply> slice = t.state.Register(gpu_agent("h:3", 16));
  ASSERT_TRUE(absl::IsFailedPrecondition(slice.status())) << slice.status();
  EXPECT_NE(slice.status().message().find("GPU multiprocessors '16' (the pool's: '132')"), std::string_view::npos)
      << slice.status();
}

TEST(FarmTrackerState, RegisterReplyCarriesTimingAndUniqueIds) {
  FakeClockTracker t;
  absl::StatusOr<v1::RegisterReply> a = t.state.Register(Agent("cpu", "h:1"));
  absl::StatusOr<v1::RegisterReply> b = t.state.Register(Agent("cpu", "h:2"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->agent_id(), b->agent_id());
  EXPECT_EQ(a->agent_timeout_ms(), 1000);
  EXPECT_EQ(a->heartbeat_interval_ms(), 200);
}

TEST(FarmTrackerState, SilentAgentIsDroppedAndItsLeaseRevoked) {
  FakeClockTracker t;
  const std::string quiet = t.state.Register(Agent("cpu", "h:1"))->agent_id();
  const std::string chatty = t.state.Register(Agent("cpu", "h:2"))->agent_id();
  auto on_quiet = std::make_shared<RecordingListener>();
  ASSERT_TRUE(t.state.Acquire(Want("cpu"), "c1", on_quiet).ok());
  ASSERT_EQ(on_quiet->last(), "granted h:1");

  t.now += 600ms;
  ASSERT_TRUE(t.state.Heartbeat(chatty).ok());
  EXPECT_EQ(t.state.ExpireSilentAgents(), 0);
  t.now += 600ms;  // quiet: 1200 ms, chatty: 600 ms
  EXPECT_EQ(t.state.ExpireSilentAgents(), 1);
  EXPECT_EQ(on_quiet->last(), "revoked agent silent for 1200 ms");
  EXPECT_GE(on_quiet->flushes(), 2);  // the revocation was delivered, not only recorded

  EXPECT_TRUE(absl::IsNotFound(t.state.Heartbeat(quiet)));
  EXPECT_TRUE(t.state.Heartbeat(chatty).ok());
  v1::ListDevicesReply list = t.state.ListDevices("");
  ASSERT_EQ(list.devices_size(), 1);
  EXPECT_EQ(list.devices(0).agent_id(), chatty);
}

TEST(FarmTrackerState, SameAddressRegisteringAgainReplacesTheOldEntry) {
  FakeClockTracker t;
  const std::string old_id = t.state.Register(Agent("cpu", "h:1"))->agent_id();
  auto holder = std::make_shared<RecordingListener>();
  ASSERT_TRUE(t.state.Acquire(Want("cpu"), "c1", holder).ok());
  const std::string new_id = t.state.Register(Agent("cpu", "h:1"))->agent_id();
  EXPECT_NE(old_id, new_id);
  EXPECT_EQ(holder->last(), "revoked agent at h:1 registered again");
  EXPECT_TRUE(absl::IsNotFound(t.state.Heartbeat(old_id)));
  EXPECT_EQ(t.state.ListDevices("").devices_size(), 1);
}

TEST(FarmTrackerState, UnregisterRevokesAtOnceAndUnknownIdIsNotFound) {
  FakeClockTracker t;
  const std::string id = t.state.Register(Agent("cpu", "h:1"))->agent_id();
  auto holder = std::make_shared<RecordingListener>();
  ASSERT_TRUE(t.state.Acquire(Want("cpu"), "c1", holder).ok());
  ASSERT_TRUE(t.state.Unregister(id).ok());
  EXPECT_EQ(holder->last(), "revoked agent left the farm");
  EXPECT_TRUE(absl::IsNotFound(t.state.Unregister(id)));
}

TEST(FarmTrackerState, ListDevicesShowsPoolsStateHoldersAndWaitingKeys) {
  FakeClockTracker t;
  ASSERT_TRUE(t.state.Register(Agent("cpu", "h:2")).ok());
  ASSERT_TRUE(t.state.Register(Agent("cpu", "h:1")).ok());
  ASSERT_TRUE(t.state.Register(Agent("arm", "h:3")).ok());
  ASSERT_TRUE(t.state.Acquire(Want("cpu"), "alice", std::make_shared<RecordingListener>()).ok());
  ASSERT_TRUE(t.state.Acquire(Want("gpu"), "bob", std::make_shared<RecordingListener>()).ok());
  t.now += 250ms;

  v1::ListDevicesReply all = t.state.ListDevices("");
  ASSERT_EQ(all.pools_size(), 3);
  EXPECT_EQ(all.pools(0).key(), "arm");
  EXPECT_EQ(all.pools(1).key(), "cpu");
  EXPECT_EQ(all.pools(1).devices(), 2);
  EXPECT_EQ(all.pools(1).leased(), 1);
  EXPECT_EQ(all.pools(2).key(), "gpu");
  EXPECT_EQ(all.pools(2).devices(), 0);
  EXPECT_EQ(all.pools(2).waiting(), 1);
  ASSERT_EQ(all.devices_size(), 3);
  // Sorted by key, then address; alice got h:2, the cpu device that registered first.
  EXPECT_EQ(all.devices(1).address(), "h:1");
  EXPECT_EQ(all.devices(1).state(), v1::DEVICE_STATE_IDLE);
  EXPECT_EQ(all.devices(2).address(), "h:2");
  EXPECT_EQ(all.devices(2).state(), v1::DEVICE_STATE_BUSY);
  ASSERT_EQ(all.devices(2).holders_size(), 1);
  EXPECT_EQ(all.devices(2).holders(0), "alice");
  EXPECT_EQ(all.devices(2).facts().cpu_model(), "Test CPU");
  EXPECT_EQ(all.devices(2).last_seen_ms_ago(), 250);

  v1::ListDevicesReply arm = t.state.ListDevices("arm");
  ASSERT_EQ(arm.devices_size(), 1);
  EXPECT_EQ(arm.pools_size(), 1);
}

TEST(FarmTrackerState, ReaperThreadDropsSilentAgentsOnItsOwn) {
  TrackerOptions options;
  options.agent_timeout = 40ms;
  TrackerState state(options);
  state.StartReaper();
  ASSERT_TRUE(state.Register(Agent("cpu", "h:1")).ok());
  const auto deadline = Clock::now() + 5s;
  while (state.ListDevices("").devices_size() > 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(state.ListDevices("").devices_size(), 0);
  state.StopReaper();
}

}  // namespace
}  // namespace tunefarm::tracker
