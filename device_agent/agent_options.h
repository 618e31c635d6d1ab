// The command line of `tunefarm agent` / tunefarm-agent.
#ifndef TUNEFARM_DEVICE_AGENT_AGENT_OPTIONS_H_
#define TUNEFARM_DEVICE_AGENT_AGENT_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/credentials.h"

namespace tunefarm::agent {

// The usage text, from the same description the parser reads.
std::string AgentUsage();

struct AgentCommandOptions {
  std::string tracker;          // HOST:PORT; empty: serve without registering
  std::string key;              // pool name, required
  std::string host = "0.0.0.0";
  int port = 9191;              // 0: any free port
  std::string advertise_host;   // what the tracker hands to clients; see ResolveAdvertiseHost
  std::string name;             // shown in `tunefarm devices`; the host name when empty
  int capacity = 1;
  std::string token_file;
  wire::TlsFiles tls;           // this agent's server identity
  wire::TlsFiles tracker_tls;   // --tracker-ca etc. for the channel to the tracker
  int64_t cache_bytes = int64_t{1} << 30;
  std::string cache_dir;        // parent of the private cache directory
  int64_t memory_limit_bytes = 0;  // 0: 3/4 of physical memory
  int32_t default_timeout_ms = 10000;
  int32_t max_timeout_ms = 600000;
  std::string measure_helper;   // empty: tunefarm-measure next to this executable
  std::string cpuinfo = "/proc/cpuinfo";  // the CPU description reported to the tracker
  std::string device = "cpu";   // "cpu", or "cuda:N" (an NVIDIA GPU through its driver)
  std::string cuda_driver = "libcuda.so.1";  // the CUDA driver library to open
  bool quiet = false;
  bool help = false;
};

// argv[0] is the command's name; "--name value", "--name=value" and bare switches follow.
// InvalidArgument names the offending argument.
absl::StatusOr<AgentCommandOptions> ParseAgentOptions(int argc, char** argv);

// The helper path to use: the flag, else tunefarm-measure in this executable's directory.
std::string ResolveMeasureHelper(const std::string& flag);

// The host part of the address registered with the tracker: the flag, else --host unless it
// is a wildcard (0.0.0.0, ::), else this machine's host name.
std::string ResolveAdvertiseHost(const AgentCommandOptions& options);

// Three quarters of physical memory: room for the agent and the system besides a kernel.
int64_t DefaultMemoryLimitBytes();

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_AGENT_OPTIONS_H_
