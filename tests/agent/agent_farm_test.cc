// The agent as a farm member: it registers with a real tracker (raw facts, address), says what
// it is through Info, stops cleanly on SIGTERM (unregistering, removing its kernels), and
// links no LLVM.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "deploy/tunefarm_abi.h"
#include "device_agent/agent_service.h"
#include "proto/credentials.h"
#include "proto/tracker_client.h"
#include "tests/agent/agent_fixture.h"

namespace tunefarm::agent::testing {
namespace {

using namespace std::chrono_literals;

std::string Ldd(const std::string& binary) {
  std::string output;
  FILE* pipe = popen(("ldd '" + binary + "' 2>&1").c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  pclose(pipe);
  return output;
}

TEST(AgentFarm, InfoReportsTheKeyFactsAndCache) {
  absl::StatusOr<std::unique_ptr<AgentProcess>> agent = AgentProcess::Start();
  ASSERT_TRUE(agent.ok()) << agent.status();
  ASSERT_TRUE(UploadFile((*agent)->client(), AGENT_KERNEL_GOOD).ok());
  absl::StatusOr<v1::InfoReply> info = (*agent)->client().Info();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->key(), "test-key");
  EXPECT_EQ(info->abi_version(), TUNEFARM_ABI_VERSION);
  EXPECT_EQ(info->agent_version(), kAgentVersion);
  ASSERT_EQ(info->accepts_size(), 1);
  EXPECT_EQ(info->accepts(0), v1::ARTIFACT_KIND_ELF_SO);
  EXPECT_GT(info->facts().logical_cpus(), 0);
  EXPECT_FALSE(info->facts().arch().empty());
  EXPECT_FALSE(info->facts().isa_flags().empty());
  EXPECT_EQ(info->cached_kernels(), 1);
  EXPECT_EQ(info->cache_bytes(), static_cast<int64_t>(ReadBinary(AGENT_KERNEL_GOOD).size()));
  EXPECT_FALSE(info->measuring());
}

TEST(AgentFarm, SigtermStopsTheAgentAndRemovesItsKernels) {
  TempDir cache_parent;
  absl::StatusOr<std::unique_ptr<AgentProcess>> agent =
      AgentProcess::Start(std::vector<std::string>{"--cache-dir", cache_parent.path()});
  ASSERT_TRUE(agent.ok()) << agent.status();
  ASSERT_TRUE(UploadFile((*agent)->client(), AGENT_KERNEL_GOOD).ok());
  std::vector<std::filesystem::path> dirs;
  for (const auto& entry : std::filesystem::directory_iterator(cache_parent.path())) {
    dirs.push_back(entry.path());
  }
  ASSERT_EQ(dirs.size(), 1u);
  const auto perms = std::filesystem::status(dirs[0]).permissions();
  EXPECT_EQ(perms & std::filesystem::perms::all, std::filesystem::perms::owner_all)
      << "the kernel cache must be private (0700)";

  (*agent)->process().Signal(SIGTERM);
  absl::StatusOr<int> code = (*agent)->process().Wait(10s);
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0);
  EXPECT_FALSE(std::filesystem::exists(dirs[0]));
}

TEST(AgentFarm, ASecondAgentOnTheSamePortFailsToStart) {
  absl::StatusOr<std::unique_ptr<AgentProcess>> first = AgentProcess::Start();
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string port = (*first)->address().substr((*first)->address().rfind(':') + 1);
  absl::StatusOr<std::unique_ptr<AgentProcess>> second =
      AgentProcess::Start(std::vector<std::string>{"--port", port});
  EXPECT_FALSE(second.ok());
}

TEST(AgentFarm, BadCommandLinesNameTheirProblem) {
  TempDir dir;
  const std::string token = dir.WriteFile("token", kToken);
  struct Case {
    std::vector<std::string> args;
    int code;
  };
  const Case cases[] = {
      {{"--port", "0", "--token-file", token}, 2},                           // no --key
      {{"--key", "k", "--port", "70000", "--token-file", token}, 2},
      {{"--key", "k", "--bogus", "1", "--token-file", token}, 2},
      {{"--key", "k", "--port", "0", "--token-file", token, "--measure-helper", "/nonexistent"}, 1},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {TUNEFARM_AGENT_BIN};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    absl::StatusOr<std::unique_ptr<ChildProcess>> process = ChildProcess::Spawn(argv);
    ASSERT_TRUE(process.ok()) << process.status();
    absl::StatusOr<int> code = (*process)->Wait(10s);
    ASSERT_TRUE(code.ok()) << code.status();
    EXPECT_EQ(*code, c.code) << c.args[0] << " " << c.args[1];
  }
}

TEST(AgentFarm, NeitherTheAgentNorItsHelperLinksLlvm) {
  const std::string agent = Ldd(TUNEFARM_AGENT_BIN);
  ASSERT_NE(agent.find("libc.so"), std::string::npos) << agent;
  EXPECT_EQ(agent.find("libLLVM"), std::string::npos) << agent;
  // The helper starts once per candidate: nothing heavy at all.
  const std::string helper = Ldd(TUNEFARM_MEASURE_BIN);
  ASSERT_NE(helper.find("libc.so"), std::string::npos) << helper;
  for (const char* heavy : {"libLLVM", "libgrpc", "libprotobuf", "libabsl", "libssl", "libcrypto"}) {
    EXPECT_EQ(helper.find(heavy), std::string::npos) << heavy << " in\n" << helper;
  }
}

#ifdef TUNEFARM_TRACKER_BIN
TEST(AgentFarm, RegistersWithTheTrackerAndLeavesOnSigterm) {
  TempDir dir;
  const std::string token = dir.WriteFile("token", kToken);
  absl::StatusOr<std::unique_ptr<ChildProcess>> tracker = ChildProcess::Spawn(
      {TUNEFARM_TRACKER_BIN, "--host", "127.0.0.1", "--port", "0", "--token-file", token,
       "--quiet"});
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  absl::StatusOr<std::string> line = (*tracker)->ReadLine(20s);
  ASSERT_TRUE(line.ok()) << line.status();
  const std::string tracker_address = line->substr(line->rfind(' ') + 1);

  absl::StatusOr<std::unique_ptr<AgentProcess>> agent =
      AgentProcess::Start(std::vector<std::string>{"--tracker", tracker_address, "--name", "agent-under-test"});
  ASSERT_TRUE(agent.ok()) << agent.status();
  wire::TrackerClient client(wire::MakeChannel(tracker_address, {}).value(), kToken);
  v1::ListDevicesReply devices;
  for (int attempt = 0; attempt < 200 && devices.devices_size() == 0; ++attempt) {
    absl::StatusOr<v1::ListDevicesReply> list = client.ListDevices("test-key");
    ASSERT_TRUE(list.ok()) << list.status();
    devices = *list;
    if (devices.devices_size() == 0) std::this_thread::sleep_for(25ms);
  }
  ASSERT_EQ(devices.devices_size(), 1);
  const v1::DeviceInfo& device = devices.devices(0);
  EXPECT_EQ(device.address(), (*agent)->address());  // what clients will dial
  EXPECT_EQ(device.agent_name(), "agent-under-test");
  EXPECT_EQ(device.capacity(), 1);
  EXPECT_FALSE(device.facts().arch().empty());
  EXPECT_GT(device.facts().logical_cpus(), 0);

  (*agent)->process().Signal(SIGTERM);
  absl::StatusOr<int> code = (*agent)->process().Wait(10s);
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0);
  absl::StatusOr<v1::ListDevicesReply> after = client.ListDevices("test-key");
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->devices_size(), 0) << "the agent did not unregister";
}
#endif

}  // namespace
}  // namespace tunefarm::agent::testing
