#include "tuner/device_locality.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace tunefarm::tuner {
namespace {

TEST(DeviceLocality, LoopbackAndThisHostsNameAreHere) {
  EXPECT_TRUE(DeviceIsOnThisHost("127.0.0.1:9190"));
  EXPECT_TRUE(DeviceIsOnThisHost("localhost:9190"));
  EXPECT_TRUE(DeviceIsOnThisHost("[::1]:9190"));
  char name[256] = {};
  ASSERT_EQ(gethostname(name, sizeof name - 1), 0);
  EXPECT_TRUE(DeviceIsOnThisHost(std::string(name) + ":9190"));
}

TEST(DeviceLocality, AnAddressOfNoInterfaceHereIsAnotherMachine) {
  // TEST-NET-1 and -3 (RFC 5737): documentation addresses, never assigned to a host.
  EXPECT_FALSE(DeviceIsOnThisHost("192.0.2.7:9190"));
  EXPECT_FALSE(DeviceIsOnThisHost("203.0.113.9:9190"));
}

TEST(DeviceLocality, WhatCannotBeReadCountsAsHereWhichIsNeverWrong) {
  EXPECT_TRUE(DeviceIsOnThisHost("no-port"));
  EXPECT_TRUE(DeviceIsOnThisHost("no-such-host.invalid:9190"));
}

}  // namespace
}  // namespace tunefarm::tuner
