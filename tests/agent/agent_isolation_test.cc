// What a kernel sees of the agent: no token, an explicit environment, no inherited descriptors
// but the result pipe, resource limits that hold, and nothing at all when it is refused.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <set>
#include <sstream>
#include <thread>

#include <grpcpp/client_context.h>

#include "proto/auth.h"
#include "tests/agent/agent_fixture.h"

namespace tunefarm::agent::testing {
namespace {

using namespace std::chrono_literals;

const std::string kSnoop = std::string(AGENT_MARKER_DIR) + "/snoop";

class AgentIsolation : public ::testing::Test {
 protected:
  void StartAgent(const AgentProcess::Options& options = {}) {
    absl::StatusOr<std::unique_ptr<AgentProcess>> agent = AgentProcess::Start(options);
    ASSERT_TRUE(agent.ok()) << agent.status();
    agent_ = std::move(*agent);
  }

  std::string Upload(const char* path) {
    absl::StatusOr<std::string> sha = UploadFile(agent_->client(), path);
    EXPECT_TRUE(sha.ok()) << path << ": " << sha.status();
    return sha.value_or("");
  }

  v1::MeasureResult Measure(const v1::MeasureRequest& request) {
    absl::StatusOr<v1::MeasureResult> result = MeasureOne(agent_->client(), request);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(v1::MeasureResult());
  }

  std::unique_ptr<AgentProcess> agent_;
};

TEST_F(AgentIsolation, TheTokenNeverReachesAKernel) {
  // The agent has the token in its environment, as `TUNEFARM_TOKEN=... tunefarm agent` would.
  AgentProcess::Options options;
  options.env = {"TUNEFARM_TEST_NOISE=visible-to-the-agent"};
  options.token_in_env = true;
  StartAgent(options);
  for (const char* suffix : {".token", ".env", ".fds"}) RemoveFile(kSnoop + suffix);
  const std::string snoop = Upload(AGENT_KERNEL_SNOOP);
  const v1::MeasureResult r = Measure(OneCandidate(1, snoop, "vadd", snoop, "vadd"));
  ASSERT_EQ(r.error_kind(), v1::ERROR_KIND_NONE) << r.message();

  ASSERT_TRUE(FileExists(kSnoop + ".token")) << "the kernel did not run";
  EXPECT_EQ(ReadBinary(kSnoop + ".token"), "");  // getenv gave nothing to write
  std::istringstream env(ReadBinary(kSnoop + ".env"));
  int entries = 0;
  for (std::string line; std::getline(env, line); ++entries) {
    EXPECT_TRUE(line.rfind("PATH=", 0) == 0 || line.rfind("LD_LIBRARY_PATH=", 0) == 0) << line;
    EXPECT_EQ(line.find(kToken), std::string::npos) << line;
  }
  EXPECT_GE(entries, 1);  // PATH is passed on
  // stdin, stdout, stderr, the result pipe, and the kernel's own directory listing.
  std::istringstream fds(ReadBinary(kSnoop + ".fds"));
  std::set<int> open;
  for (int fd; fds >> fd;) open.insert(fd);
  EXPECT_TRUE(open.count(3)) << "no result pipe";
  for (int fd : open) EXPECT_LE(fd, 4) << "descriptor " << fd << " leaked into the helper";
}

TEST_F(AgentIsolation, ResourceLimitsHoldInsideTheHelper) {
  StartAgent();
  const std::string snoop = Upload(AGENT_KERNEL_SNOOP);
  // "limits" returns RLIMIT_AS in MiB when RLIMIT_CORE is 0.
  v1::MeasureResult r = Measure(OneCandidate(1, snoop, "limits"));
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_RUNTIME_ERROR);
  EXPECT_EQ(r.exit_code(), kMemoryLimitMb) << r.message();
  // RLIMIT_CPU: timeout (3 s) x threads (2) + 1.
  r = Measure(OneCandidate(2, snoop, "cpu_limit", "", "", /*timeout_ms=*/3000));
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_RUNTIME_ERROR);
  EXPECT_EQ(r.exit_code(), 7) << r.message();
}

TEST_F(AgentIsolation, AKernelsOwnHugeMappingIsRefusedByTheLimit) {
  StartAgent();
  const std::string snoop = Upload(AGENT_KERNEL_SNOOP);
  // Guard: only run the hog once the limit is known to hold (it would touch 16 GiB otherwise).
  ASSERT_EQ(Measure(OneCandidate(1, snoop, "limits")).exit_code(), kMemoryLimitMb);
  const v1::MeasureResult r = Measure(OneCandidate(2, Upload(AGENT_KERNEL_HOG), "hog_mmap"));
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_RUNTIME_ERROR) << r.message();
  EXPECT_EQ(r.exit_code(), 12);  // ENOMEM from its mmap
}

TEST_F(AgentIsolation, AKernelForAnotherMachineIsNeverLoaded) {
  StartAgent();
  const std::string marker = std::string(AGENT_MARKER_DIR) + "/foreign";
  RemoveFile(marker);
  // Metadata for aarch64: refused from the ELF's metadata symbol, before dlopen (which would
  // run the constructor that creates the marker).
  v1::MeasureResult r = Measure(OneCandidate(1, Upload(AGENT_KERNEL_FOREIGN), "vadd"));
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_LOAD);
  EXPECT_NE(r.message().find("cortex-a72"), std::string::npos) << r.message();
  EXPECT_FALSE(FileExists(marker)) << "the foreign kernel was loaded";

  // An ELF for another machine: a good kernel with its e_machine patched to EM_AARCH64 (183).
  std::string patched = ReadBinary(AGENT_KERNEL_GOOD);
  ASSERT_GT(patched.size(), 20u);
  patched[18] = static_cast<char>(183);
  patched[19] = 0;
  absl::StatusOr<v1::UploadReply> up = agent_->client().Upload(patched);
  ASSERT_TRUE(up.ok()) << up.status();
  r = Measure(OneCandidate(2, up->sha256(), "vadd"));
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_LOAD);
  EXPECT_NE(r.message().find("refused before loading"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("is an ELF for aarch64"), std::string::npos) << r.message();
}

TEST_F(AgentIsolation, AnUploadDeclaringAnotherTargetIsRefusedAtOnce) {
  StartAgent();
  v1::KernelMetadata metadata;
  metadata.set_target("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72");
  metadata.set_artifact_kind(v1::ARTIFACT_KIND_ELF_SO);
  absl::StatusOr<v1::UploadReply> up =
      agent_->client().Upload(ReadBinary(AGENT_KERNEL_FOREIGN), &metadata);
  EXPECT_TRUE(absl::IsFailedPrecondition(up.status())) << up.status();
  EXPECT_NE(up.status().message().find("aarch64"), std::string::npos) << up.status();
  absl::StatusOr<v1::InfoReply> info = agent_->client().Info();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->cached_kernels(), 0);
}

TEST_F(AgentIsolation, CancellingAMeasureKillsItsHelper) {
  StartAgent();
  const std::string spin = Upload(AGENT_KERNEL_SPIN);
  const std::string good = Upload(AGENT_KERNEL_GOOD);
  auto stub = v1::DeviceAgent::NewStub(agent_->channel());
  grpc::ClientContext context;
  wire::AddToken(context, kToken);
  auto reader = stub->Measure(&context, OneCandidate(1, spin, "vadd", "", "", 60000));
  std::thread cancel([&] {
    std::this_thread::sleep_for(300ms);
    context.TryCancel();
  });
  v1::MeasureResult ignored;
  while (reader->Read(&ignored)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  cancel.join();
  // The queue is free again long before the spinning kernel's 60 s timeout.
  const auto start = std::chrono::steady_clock::now();
  const v1::MeasureResult r = Measure(OneCandidate(2, good, "vadd", good, "vadd_ref"));
  EXPECT_EQ(r.error_kind(), v1::ERROR_KIND_NONE) << r.message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

}  // namespace
}  // namespace tunefarm::agent::testing
