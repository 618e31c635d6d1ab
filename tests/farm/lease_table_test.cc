#include "tracker/lease_table.h"

#include <gtest/gtest.h>

#include "tests/farm/recording_listener.h"

namespace tunefarm::tracker {
namespace {

using testing::RecordingListener;
using Events = std::vector<std::string>;

std::shared_ptr<RecordingListener> Listener() { return std::make_shared<RecordingListener>(); }

TEST(FarmLeaseTable, GrantsAtOnceWhenASlotIsFree) {
  LeaseTable table("l");
  table.AddDevice("a1", "cpu", "host:1", 1);
  auto listener = Listener();
  table.Request("cpu", 0, "c1", listener);
  EXPECT_EQ(listener->events(), Events{"granted host:1"});
  EXPECT_EQ(table.TakeTouched().size(), 1u);
  EXPECT_EQ(table.Usage("a1").leased, 1);
  EXPECT_EQ(table.Usage("a1").holders, std::vector<std::string>{"c1"});
}

TEST(FarmLeaseTable, QueuesWhenFullAndReportsPosition) {
  LeaseTable table("l");
  table.AddDevice("a1", "cpu", "host:1", 1);
  table.Request("cpu", 0, "holder", Listener());
  auto w1 = Listener();
  auto w2 = Listener();
  auto none = Listener();
  table.Request("cpu", 0, "w1", w1);
  table.Request("cpu", 0, "w2", w2);
  table.Request("gpu", 0, "none", none);
  EXPECT_EQ(w1->events(), Events{"queued 1 of pool 1"});
  EXPECT_EQ(w2->events(), Events{"queued 2 of pool 1"});
  EXPECT_EQ(none->events(), Events{"queued 1 of pool 0"});
  EXPECT_EQ(table.WaitingByKey(), (std::map<std::string, int>{{"cpu", 2}, {"gpu", 1}}));
}

TEST(FarmLeaseTable, ServesHigherPriorityFirstThenFifo) {
  LeaseTable table("l");
  table.AddDevice("a1", "cpu", "host:1", 1);
  const TicketId holder = table.Request("cpu", 0, "holder", Listener());
  auto low1 = Listener(), low2 = Listener(), high = Listener(), low3 = Listener();
  const TicketId t_low1 = table.Request("cpu", 0, "low1", low1);
  const TicketId t_low2 = table.Request("cpu", 0, "low2", low2);
  const TicketId t_high = table.Request("cpu", 7, "high", high);
  table.Request("cpu", 0, "low3", low3);
  EXPECT_EQ(high->events(), Events{"queued 1 of pool 1"});

  auto granted = [](const std::shared_ptr<RecordingListener>& l) {
    return l->last().rfind("granted", 0) == 0;
  };
  table.Release(holder);
  ASSERT_TRUE(granted(high));
  EXPECT_FALSE(granted(low1));
  table.Release(t_high);
  ASSERT_TRUE(granted(low1));
  EXPECT_FALSE(granted(low2));
  table.Release(t_low1);
  ASSERT_TRUE(granted(low2));
  EXPECT_FALSE(granted(low3));
  table.Release(t_low2);
  EXPECT_TRUE(granted(low3));
  EXPECT_TRUE(table.WaitingByKey().empty());
}

TEST(FarmLeaseTable, ReleasedWaiterLeavesTheQueue) {
  LeaseTable table("l");
  table.AddDevice("a1", "cpu", "host:1", 1);
  const TicketId holder = table.Request("cpu", 0, "holder", Listener());
  auto gone = Listener(), next = Listener();
  const TicketId t_gone = table.Request("cpu", 0, "gone", gone);
  table.Request("cpu", 0, "next", next);
  table.Release(t_gone);
  table.Release(holder);
  EXPECT_EQ(gone->events(), Events{"queued 1 of pool 1"});
  EXPECT_EQ(next->last(), "granted host:1");
  table.Release(t_gone);  // twice: ignored
  EXPECT_EQ(table.Usage("a1").holders, std::vector<std::string>{"next"});
}

TEST(FarmLeaseTable, RemovedDeviceRevokesHoldersButNotWaiters) {
  LeaseTable table("l");
  table.AddDevice("a1", "cpu", "host:1", 1);
  auto holder = Listener(), waiter = Listener();
  const TicketId t_holder = table.Request("cpu", 0, "holder", holder);
  table.Request("cpu", 0, "waiter", waiter);
  EXPECT_EQ(table.RemoveDevice("a1", "agent died"), 1);
  EXPECT_EQ(holder->last(), "revoked agent died");
  EXPECT_EQ(waiter->events(), Events{"queued 1 of pool 1"});
  table.Release(t_holder);  // the client closes its stream afterwards: no effect
  // A new device of the key serves the waiter.
  table.AddDevice("a2", "cpu", "host:2", 1);
  EXPECT_EQ(waiter->last(), "granted host:2");
}

TEST(FarmLeaseTable, CapacityAllowsSeveralHoldersAndLeasesSpreadOverDevices) {
  LeaseTable table("l");
  table.AddDevice("a1", "cpu", "host:1", 2);
  table.AddDevice("a2", "cpu", "host:2", 1);
  auto c1 = Listener(), c2 = Listener(), c3 = Listener(), c4 = Listener();
  table.Request("cpu", 0, "c1", c1);
  table.Request("cpu", 0, "c2", c2);
  table.Request("cpu", 0, "c3", c3);
  table.Request("cpu", 0, "c4", c4);
  EXPECT_EQ(c1->last(), "granted host:1");
  EXPECT_EQ(c2->last(), "granted host:2");  // the emptier device first
  EXPECT_EQ(c3->last(), "granted host:1");
  EXPECT_EQ(c4->last(), "queued 1 of pool 2");
  EXPECT_EQ(table.Usage("a1").leased, 2);
}

TEST(FarmLeaseTable, RevokeAllEndsEveryRequest) {
  LeaseTable table("l");
  table.AddDevice("a1", "cpu", "host:1", 1);
  auto holder = Listener(), waiter = Listener();
  table.Request("cpu", 0, "holder", holder);
  table.Request("cpu", 0, "waiter", waiter);
  table.TakeTouched();
  table.RevokeAll("stopping");
  EXPECT_EQ(holder->last(), "revoked stopping");
  EXPECT_EQ(waiter->last(), "revoked stopping");
  EXPECT_EQ(table.TakeTouched().size(), 2u);
  EXPECT_EQ(table.Usage("a1").leased, 0);
  EXPECT_TRUE(table.WaitingByKey().empty());
}

}  // namespace
}  // namespace tunefarm::tracker
