// A real tunefarm-agent process on loopback for the integration tests, and shortcuts for
// uploading the test kernels and measuring one candidate.
#ifndef TUNEFARM_TESTS_AGENT_AGENT_FIXTURE_H_
#define TUNEFARM_TESTS_AGENT_AGENT_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/status/statusor.h"
#include "device_agent/agent_client.h"
#include "tests/farm/child_process.h"

namespace tunefarm::agent::testing {

using tunefarm::testing::ChildProcess;
using tunefarm::testing::TempDir;

inline constexpr char kToken[] = "agent-test-token";
// Every test agent's measurement memory limit; the limits test reads it back from a kernel.
inline constexpr int kMemoryLimitMb = 2048;

std::string ReadBinary(const std::string& path);
// Removes `path` if it exists.
void RemoveFile(const std::string& path);
bool FileExists(const std::string& path);

class AgentProcess {
 public:
  struct Options {
    std::vector<std::string> args;  // more command-line options
    std::vector<std::string> env;   // more environment ("NAME=value")
    bool token_in_env = false;      // $TUNEFARM_TOKEN instead of --token-file
  };
  // Starts `tunefarm-agent --key test-key --host 127.0.0.1 --port 0 --memory-limit-mb 2048`
  // with its cache in a temporary directory, and waits for its "listening on" line.
  static absl::StatusOr<std::unique_ptr<AgentProcess>> Start(const Options& options);
  static absl::StatusOr<std::unique_ptr<AgentProcess>> Start() { return Start(Options()); }
  static absl::StatusOr<std::unique_ptr<AgentProcess>> Start(std::vector<std::string> args) {
    Options options;
    options.args = std::move(args);
    return Start(options);
  }

  const std::string& address() const { return address_; }
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  AgentClient& client() { return *client_; }  // carries the right token
  ChildProcess& process() { return *process_; }
  // True while the process has not exited.
  bool Running();

 private:
  AgentProcess() = default;

  TempDir dir_;
  std::unique_ptr<ChildProcess> process_;
  std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<AgentClient> client_;
};

// Uploads the file; the kernel's sha256.
absl::StatusOr<std::string> UploadFile(AgentClient& client, const std::string& path);

// A request for one candidate, checked against the reference when `reference_sha` is given.
v1::MeasureRequest OneCandidate(uint64_t id, const std::string& sha, const std::string& entry,
                                const std::string& reference_sha = "",
                                const std::string& reference_entry = "",
                                int32_t timeout_ms = 5000);

// The single result of a one-candidate request (an error if the stream failed or did not
// carry exactly one result).
absl::StatusOr<v1::MeasureResult> MeasureOne(AgentClient& client,
                                             const v1::MeasureRequest& request);

}  // namespace tunefarm::agent::testing

#endif  // TUNEFARM_TESTS_AGENT_AGENT_FIXTURE_H_
