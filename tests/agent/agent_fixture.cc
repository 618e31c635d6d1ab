#include "tests/agent/agent_fixture.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "proto/credentials.h"

namespace tunefarm::agent::testing {

using namespace std::chrono_literals;

std::string ReadBinary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void RemoveFile(const std::string& path) { unlink(path.c_str()); }

bool FileExists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

absl::StatusOr<std::unique_ptr<AgentProcess>> AgentProcess::Start(const Options& options) {
  std::unique_ptr<AgentProcess> agent(new AgentProcess());
  // The cache goes in the fixture's directory: removed even when the agent is SIGKILLed.
  std::vector<std::string> argv = {TUNEFARM_AGENT_BIN, "--key", "test-key", "--host", "127.0.0.1",
                                   "--port", "0", "--memory-limit-mb",
                                   std::to_string(kMemoryLimitMb), "--quiet"};
  // A flag may be given once: a test's own --cache-dir replaces the fixture's.
  if (std::find(options.args.begin(), options.args.end(), "--cache-dir") == options.args.end())
    argv.insert(argv.end(), {"--cache-dir", agent->dir_.path()});
  std::vector<std::string> env = options.env;
  if (options.token_in_env) {
    env.push_back(absl::StrCat("TUNEFARM_TOKEN=", kToken));
  } else {
    argv.insert(argv.end(), {"--token-file", agent->dir_.WriteFile("token", kToken)});
    env.push_back("TUNEFARM_TOKEN=");  // not inherited from whoever runs the tests
  }
  argv.insert(argv.end(), options.args.begin(), options.args.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> process = ChildProcess::Spawn(argv, env);
  if (!process.ok()) return process.status();
  agent->process_ = std::move(*process);
  absl::StatusOr<std::string> line = agent->process_->ReadLine(20s);
  if (!line.ok()) return line.status();
  constexpr char kPrefix[] = "tunefarm agent listening on ";
  if (line->rfind(kPrefix, 0) != 0) {
    return absl::InternalError(absl::StrCat("unexpected first line from the agent: ", *line));
  }
  agent->address_ = line->substr(sizeof kPrefix - 1);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = wire::MakeChannel(agent->address_, {});
  if (!channel.ok()) return channel.status();
  agent->channel_ = *channel;
  agent->client_ = std::make_unique<AgentClient>(agent->channel_, kToken, 60s);
  return agent;
}

bool AgentProcess::Running() {
  return absl::IsDeadlineExceeded(process_->Wait(0ms).status());
}

absl::StatusOr<std::string> UploadFile(AgentClient& client, const std::string& path) {
  const std::string bytes = ReadBinary(path);
  if (bytes.empty()) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  absl::StatusOr<v1::UploadReply> reply = client.Upload(bytes);
  if (!reply.ok()) return reply.status();
  return reply->sha256();
}

v1::MeasureRequest OneCandidate(uint64_t id, const std::string& sha, const std::string& entry,
                                const std::string& reference_sha,
                                const std::string& reference_entry, int32_t timeout_ms) {
  v1::MeasureRequest request;
  v1::MeasureOptions& options = *request.mutable_options();
  options.set_number(2);
  options.set_repeat(3);
  options.set_timeout_ms(timeout_ms);
  options.set_threads(2);
  options.set_seed(42);
  if (!reference_sha.empty()) {
    options.set_check_correctness(true);
    request.mutable_reference()->set_sha256(reference_sha);
    request.mutable_reference()->set_entry(reference_entry);
  }
  v1::Candidate& candidate = *request.add_candidates();
  candidate.set_id(id);
  candidate.mutable_kernel()->set_sha256(sha);
  candidate.mutable_kernel()->set_entry(entry);
  return request;
}

absl::StatusOr<v1::MeasureResult> MeasureOne(AgentClient& client,
                                             const v1::MeasureRequest& request) {
  absl::StatusOr<std::vector<v1::MeasureResult>> results = client.MeasureAll(request);
  if (!results.ok()) return results.status();
  if (results->size() != 1) {
    return absl::InternalError(absl::StrCat("expected one result, got ", results->size()));
  }
  return results->front();
}

}  // namespace tunefarm::agent::testing
