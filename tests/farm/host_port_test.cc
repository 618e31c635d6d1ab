#include "proto/host_port.h"

#include <gtest/gtest.h>

#include "proto/credentials.h"

namespace tunefarm::wire {
namespace {

TEST(HostPortTest, SplitsHostAndPort) {
  absl::StatusOr<HostPort> a = ParseHostPort("127.0.0.1:9190");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9190);
  absl::StatusOr<HostPort> b = ParseHostPort("[::1]:65535");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 65535);
  EXPECT_EQ(ParseHostPort("board-7.lab:1")->host, "board-7.lab");
}

// gRPC would dial port 99999 modulo 65536 = 34463: a port the user never named.
TEST(HostPortTest, RefusesPortsOutsideTheRange) {
  for (const char* address : {"127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:0", "h:4294967297"}) {
    absl::StatusOr<HostPort> parsed = ParseHostPort(address);
    ASSERT_FALSE(parsed.ok()) << address;
    EXPECT_NE(parsed.status().message().find("outside 1-65535"), std::string::npos) << parsed.status();
    EXPECT_NE(parsed.status().message().find(address), std::string::npos) << parsed.status();
  }
}

TEST(HostPortTest, NamesWhatIsMissingOrMalformed) {
  EXPECT_NE(ParseHostPort("localhost").status().message().find("no port"), std::string::npos);
  EXPECT_NE(ParseHostPort("localhost:").status().message().find("no port"), std::string::npos);
  EXPECT_NE(ParseHostPort(":9190").status().message().find("no host"), std::string::npos);
  EXPECT_NE(ParseHostPort("h:91a").status().message().find("not a number"), std::string::npos);
  EXPECT_NE(ParseHostPort("h:-1").status().message().find("not a number"), std::string::npos);
  EXPECT_NE(ParseHostPort("::1:9190").status().message().find("brackets"), std::string::npos);
}

TEST(HostPortTest, NoChannelIsMadeToABadAddress) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = MakeChannel("127.0.0.1:99999", {});
  ASSERT_FALSE(channel.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(channel.status())) << channel.status();
}

}  // namespace
}  // namespace tunefarm::wire
