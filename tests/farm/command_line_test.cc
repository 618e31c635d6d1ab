#include "tracker/command_line.h"

#include <gtest/gtest.h>

#include "tracker/devices_format.h"

namespace tunefarm::tracker {
namespace {

absl::StatusOr<CommandLine> Parse(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return CommandLine::Parse(static_cast<int>(argv.size()), argv.data(), {"port", "host"}, {"json"});
}

TEST(FarmCommandLine, ParsesBothValueFormsAndSwitches) {
  absl::StatusOr<CommandLine> line = Parse({"tracker", "--port", "0", "--host=127.0.0.1", "--json"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->GetInt("port", 9190, 0, 65535).value_or(-1), 0);
  EXPECT_EQ(line->Get("host"), "127.0.0.1");
  EXPECT_TRUE(line->Has("json"));
  EXPECT_EQ(line->Get("missing", "fallback"), "fallback");
}

TEST(FarmCommandLine, ErrorsNameTheOffendingArgument) {
  EXPECT_NE(Parse({"t", "--colour", "red"}).status().message().find("--colour"), std::string_view::npos);
  EXPECT_NE(Parse({"t", "--port"}).status().message().find("needs a value"), std::string_view::npos);
  EXPECT_NE(Parse({"t", "stray"}).status().message().find("stray"), std::string_view::npos);
  EXPECT_FALSE(Parse({"t", "--json=yes"}).ok());
  absl::StatusOr<CommandLine> line = Parse({"t", "--port", "70000"});
  ASSERT_TRUE(line.ok());
  absl::StatusOr<int64_t> port = line->GetInt("port", 0, 0, 65535);
  EXPECT_NE(port.status().message().find("--port 70000"), std::string_view::npos);
}

TEST(FarmDevicesFormat, TableAndJsonShowPoolsAndDevices) {
  v1::ListDevicesReply reply;
  v1::PoolInfo* pool = reply.add_pools();
  pool->set_key("arm");
  pool->set_devices(1);
  pool->set_capacity(1);
  pool->set_leased(1);
  v1::DeviceInfo* device = reply.add_devices();
  device->set_key("arm");
  device->set_address("10.0.0.7:9191");
  device->set_state(v1::DEVICE_STATE_BUSY);
  device->set_leased(1);
  device->set_capacity(1);
  device->add_holders("tuner-1");
  device->mutable_facts()->set_cpu_vendor("0x41");
  device->mutable_facts()->set_cpu_part("0xd08");
  const std::string table = FormatDevicesTable(reply);
  EXPECT_NE(table.find("10.0.0.7:9191"), std::string::npos);
  EXPECT_NE(table.find("busy"), std::string::npos);
  EXPECT_NE(table.find("tuner-1"), std::string::npos);
  EXPECT_NE(table.find("0x41 0xd08"), std::string::npos);
  const std::string json = FormatDevicesJson(reply);
  EXPECT_NE(json.find("\"address\": \"10.0.0.7:9191\""), std::string::npos);
  EXPECT_NE(json.find("\"last_seen_ms_ago\""), std::string::npos);  // .proto names, zeros shown
  EXPECT_NE(json.find("\"state\": \"DEVICE_STATE_BUSY\""), std::string::npos);
  EXPECT_EQ(FormatDevicesTable(v1::ListDevicesReply()), "no devices registered\n");
}

}  // namespace
}  // namespace tunefarm::tracker
