// `tunefarm agent`: served when the build has device_agent/, explained when it does not. With
// the agent built in, it registers with a `tunefarm tracker` and leaves on SIGTERM.
#include <dlfcn.h>
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_process.h"

namespace tunefarm::cli::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr char kToken[] = "TUNEFARM_TOKEN=cli-agent-token";
#if defined(__aarch64__)
constexpr bool kThisIsArm = true;
#else
constexpr bool kThisIsArm = false;
#endif

bool AgentBuiltIn() {
  CliResult r = RunTunefarm({"version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("device agent: "));
  return r.out.find("device agent: built in") != std::string::npos;
}

// Starts a server subcommand and returns it with the address it printed after `prefix`.
std::unique_ptr<CliProcess> StartServer(const std::vector<std::string>& args,
                                        const std::string& prefix, std::string* address) {
  absl::StatusOr<std::unique_ptr<CliProcess>> server = CliProcess::Start(args, {kToken});
  EXPECT_TRUE(server.ok()) << server.status();
  if (!server.ok()) return nullptr;
  absl::StatusOr<std::string> line = (*server)->ReadLine(30s);
  EXPECT_TRUE(line.ok()) << line.status() << "\nstderr: " << (*server)->err();
  if (!line.ok() || line->rfind(prefix, 0) != 0) {
    ADD_FAILURE() << "expected '" << prefix << "...', got '" << line.value_or("") << "'";
    return nullptr;
  }
  *address = line->substr(prefix.size());
  return std::move(*server);
}

// The number of devices the tracker lists, or -1 when the listing fails.
int DeviceCount(const std::string& tracker) {
  CliResult r = RunTunefarm({"devices", "--tracker", tracker, "--json"}, {kToken});
  if (r.exit_code != 0) return -1;
  nlohmann::json json = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  return json.is_discarded() ? -1 : static_cast<int>(json["devices"].size());
}

bool WaitForDeviceCount(const std::string& tracker, int count) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (DeviceCount(tracker) == count) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

// tests/cli/CMakeLists.txt defines TUNEFARM_HAVE_AGENT exactly when the binary under test has
// the device agent, so each build compiles the one agent test that applies to it (nothing is
// skipped at run time), and this test fails if the binary says otherwise.
#ifndef TUNEFARM_HAVE_AGENT
#define TUNEFARM_HAVE_AGENT 0
#endif

TEST(CliAgentTest, VersionReportsWhatThisBuildHas) {
  EXPECT_EQ(AgentBuiltIn(), TUNEFARM_HAVE_AGENT != 0);
}

#if !TUNEFARM_HAVE_AGENT
// A build with device_agent/ left out (TUNEFARM_SKIP).
TEST(CliAgentTest, WithoutTheAgentTheCommandSaysSo) {
  CliResult r = RunTunefarm({"agent", "--key", "k", "--port", "0"}, {kToken});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("tunefarm agent: this tunefarm was built without the device agent"));
}

#else
TEST(CliAgentTest, RegistersWithTheTrackerAndLeavesOnSigterm) {
  std::string tracker_address;
  std::unique_ptr<CliProcess> tracker =
      StartServer({"tracker", "--port", "0", "--host", "127.0.0.1", "--quiet"},
                  "tunefarm tracker listening on ", &tracker_address);
  ASSERT_NE(tracker, nullptr);
  std::string agent_address;
  std::unique_ptr<CliProcess> agent = StartServer(
      {"agent", "--key", "cli-test", "--tracker", tracker_address, "--port", "0", "--host",
       "127.0.0.1", "--quiet"},
      "tunefarm agent listening on ", &agent_address);
  ASSERT_NE(agent, nullptr);
  EXPECT_NE(agent_address, "127.0.0.1:0");
  EXPECT_TRUE(WaitForDeviceCount(tracker_address, 1)) << "the agent never registered";

  agent->Signal(SIGTERM);
  absl::StatusOr<int> code = agent->Finish(30s);
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << agent->err();
  EXPECT_TRUE(WaitForDeviceCount(tracker_address, 0)) << "the agent did not leave the tracker";

  tracker->Signal(SIGTERM);
  EXPECT_EQ(tracker->Finish(30s).value_or(-1), 0) << tracker->err();
}

// --cpuinfo: a file that cannot be read stops the agent with its name; a description of another
// architecture (an ARM board's, here on x86, or the host's under qemu-aarch64) is served with a
// warning that names the flag.
TEST(CliAgentTest, ACpuDescriptionThatCannotBeReadOrDoesNotFitIsNamed) {
  CliResult r = RunTunefarm({"agent", "--key", "k", "--port", "0", "--host", "127.0.0.1", "--cpuinfo",
                             "/nonexistent/cpuinfo"},
                            {kToken});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("tunefarm agent: cannot read the CPU description /nonexistent/cpuinfo"));

  TempDir dir;
  const std::string foreign = dir.WriteFile(
      "cpuinfo", std::string("processor\t: 0\n") +
                     (kThisIsArm ? "vendor_id\t: GenuineIntel\nflags\t: fpu sse avx\n"
                                 : "CPU implementer\t: 0x41\nCPU part\t: 0xd08\nFeatures\t: fp asimd\n"));
  std::string address;
  std::unique_ptr<CliProcess> agent = StartServer(
      {"agent", "--key", "k", "--port", "0", "--host", "127.0.0.1", "--cpuinfo", foreign},
      "tunefarm agent listening on ", &address);
  ASSERT_NE(agent, nullptr);
  agent->Signal(SIGTERM);
  EXPECT_EQ(agent->Finish(30s).value_or(-1), 0) << agent->err();
  EXPECT_THAT(agent->err(), HasSubstr("tunefarm agent: warning: the CPU description (vendor"));
  EXPECT_THAT(agent->err(), HasSubstr("Pass --cpuinfo FILE"));
}
// --device cuda:N: without a CUDA driver (CI, this kind of machine) a clear refusal, exit 1, no
// crash. (With a driver the agent serves the GPU: tests/agent/gpu_measure_test.cc, against a
// fake driver.) A malformed --device is a usage error.
TEST(CliAgentTest, WithoutADriverAGpuDeviceIsRefusedWithTheReason) {
  CliResult bad = RunTunefarm({"agent", "--key", "k", "--port", "0", "--device", "gpu0"}, {kToken});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--device gpu0: expected cpu or cuda:N"));
  CliResult missing = RunTunefarm({"agent", "--key", "k", "--port", "0", "--host", "127.0.0.1", "--device", "cuda:0",
                                   "--cuda-driver", "/nonexistent/libcuda.so.1"},
                                  {kToken});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr("tunefarm agent: --device cuda:0: no CUDA driver: /nonexistent/libcuda.so.1"));
  // With a real driver the default --cuda-driver serves the GPU and the agent would not exit:
  // the refusal can only be seen where there is none (CI). The explicit missing path above is
  // checked everywhere.
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver != nullptr) {
    dlclose(driver);
    GTEST_SKIP() << "this machine has a CUDA driver: the default --cuda-driver would serve the GPU";
  }
  CliResult r = RunTunefarm({"agent", "--key", "k", "--port", "0", "--host", "127.0.0.1", "--device", "cuda:0"},
                            {kToken});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("tunefarm agent: --device cuda:0: no CUDA driver: libcuda.so.1"));
}
#endif  // TUNEFARM_HAVE_AGENT

}  // namespace
}  // namespace tunefarm::cli::testing
