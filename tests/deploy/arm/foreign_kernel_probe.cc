// Sends one kernel file to a running agent, as raw bytes with no metadata in the upload (so
// only what the agent reads from the file itself can refuse it), asks it to measure `entry`,
// and prints the result: "ERROR_KIND message". agent_under_qemu.sh sends an x86 kernel to the
// aarch64 agent this way, to check that its ELF check refuses it before loading.
//
//   foreign_kernel_probe HOST:PORT KERNEL.so ENTRY    (the token from $TUNEFARM_TOKEN)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "device_agent/agent_client.h"
#include "proto/credentials.h"

namespace {

int Probe(const std::string& address, const std::string& path, const std::string& entry) {
  using tunefarm::agent::AgentClient;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 2;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  auto channel = tunefarm::wire::MakeChannel(address, {});
  if (!channel.ok()) {
    std::fprintf(stderr, "%s\n", std::string(channel.status().message()).c_str());
    return 2;
  }
  const char* token = std::getenv("TUNEFARM_TOKEN");
  AgentClient client(*channel, token ? token : "");
  auto upload = client.Upload(bytes.str());
  if (!upload.ok()) {
    std::printf("upload refused: %s\n", std::string(upload.status().message()).c_str());
    return 0;
  }
  tunefarm::v1::MeasureRequest request;
  request.mutable_options()->set_number(1);
  request.mutable_options()->set_repeat(1);
  request.mutable_options()->set_timeout_ms(60000);
  tunefarm::v1::Candidate& candidate = *request.add_candidates();
  candidate.set_id(1);
  candidate.mutable_kernel()->set_sha256(upload->sha256());
  candidate.mutable_kernel()->set_entry(entry);
  auto results = client.MeasureAll(request);
  if (!results.ok()) {
    std::printf("measure call failed: %s\n", std::string(results.status().message()).c_str());
    return 0;
  }
  for (const tunefarm::v1::MeasureResult& result : *results) {
    std::printf("%s %s\n", tunefarm::v1::ErrorKind_Name(result.error_kind()).c_str(),
                result.message().c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: foreign_kernel_probe HOST:PORT KERNEL.so ENTRY\n");
    return 2;
  }
  return Probe(argv[1], argv[2], argv[3]);
}
