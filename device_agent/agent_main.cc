#include "device_agent/agent_main.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "common/strings.h"
#include "device_agent/agent_options.h"
#include "device_agent/agent_server.h"
#include "device_agent/cuda_driver.h"
#include "proto/hardware_facts.h"
#include "proto/agent_registration.h"
#include "proto/auth.h"
#include "proto/credentials.h"
#include "proto/host_port.h"
#include "proto/refusal_log.h"
#include "proto/termination.h"

namespace tunefarm::agent {
namespace {

void Say(const std::string& message) {
  std::fprintf(stderr, "tunefarm agent: %s\n", message.c_str());
}

// --device cuda:N: the GPU's facts, read through its driver, join the host's, and the helper
// measures PTX on that GPU. False (having said why) when there is no such GPU.
bool DescribeGpu(const AgentCommandOptions& options, AgentServerOptions* server) {
  absl::StatusOr<v1::GpuFacts> gpu = ReadGpuFacts(options.cuda_driver, ParseCudaDevice(options.device));
  if (!gpu.ok()) {
    Say(StrCat("--device ", options.device, ": ", std::string(gpu.status().message())));
    return false;
  }
  if (!options.quiet) {
    Say(StrCat(options.device, ": ", gpu->name(), ", compute capability ", gpu->compute_capability(), ", ",
               gpu->multiprocessors(), " SMs, ", gpu->memory_bytes() >> 20, " MiB, ", gpu->clock_khz() / 1000, " MHz"));
  }
  AgentDevice& device = server->limits.device;
  device.cuda = options.device;
  device.cuda_driver = options.cuda_driver;
  const std::string& cc = gpu->compute_capability();
  device.sm = std::atoi(cc.c_str()) * 10 + (cc.find('.') != std::string::npos ? std::atoi(cc.c_str() + cc.find('.') + 1) : 0);
  *server->identity.facts.add_gpus() = *std::move(gpu);
  return true;
}

}  // namespace

int RunAgentCommand(int argc, char** argv) {
  wire::BlockTerminationSignals();
  absl::StatusOr<AgentCommandOptions> options = ParseAgentOptions(argc, argv);
  if (!options.ok()) {
    Say(std::string(options.status().message()));
    std::fputs(AgentUsage().c_str(), stderr);
    return 2;
  }
  if (options->help) {
    std::fputs(AgentUsage().c_str(), stdout);
    return 0;
  }
  absl::StatusOr<std::string> token = wire::LoadToken(options->token_file);
  if (!token.ok()) {
    Say(std::string(token.status().message()));
    return 2;
  }

  std::string token_warning;
  if (absl::Status s = wire::CheckServerToken(*token, options->host, &token_warning); !s.ok()) {
    Say(std::string(s.message()));
    return 2;
  }
  if (!token_warning.empty() && !options->quiet) Say(token_warning);

  wire::SetRefusalLog(Say);  // even with --quiet: a refused call is what an operator must see

  AgentServerOptions server_options;
  server_options.host = options->host;
  server_options.port = options->port;
  server_options.token = *token;
  server_options.tls = options->tls;
  if (!std::ifstream(options->cpuinfo)) {
    Say("cannot read the CPU description " + options->cpuinfo);
    return 2;
  }
  server_options.identity = {options->key, wire::ReadHardwareFacts(options->cpuinfo)};
  if (options->device != "cpu" && !DescribeGpu(*options, &server_options)) return 1;
  if (const std::string mismatch = wire::CpuInfoMismatch(server_options.identity.facts); !mismatch.empty()) {
    Say("warning: " + mismatch);
  }
  server_options.cache_limit_bytes = options->cache_bytes;
  server_options.cache_parent = options->cache_dir;
  server_options.limits.helper_path = ResolveMeasureHelper(options->measure_helper);
  server_options.limits.memory_limit_bytes = options->memory_limit_bytes;
  server_options.limits.default_timeout_ms = options->default_timeout_ms;
  server_options.limits.max_timeout_ms = options->max_timeout_ms;
  absl::StatusOr<std::unique_ptr<AgentServer>> server = AgentServer::Start(server_options);
  if (!server.ok()) {
    Say(std::string(server.status().message()));
    return 1;
  }
  if (options->tls.cert_file.empty() && !wire::IsLoopbackHost(options->host)) {
    Say("warning: plaintext on a non-loopback address; the token and kernels cross the network "
        "in the clear (see docs/wire.md for TLS)");
  }

  std::unique_ptr<wire::AgentRegistration> registration;
  if (!options->tracker.empty()) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = wire::MakeChannel(
        options->tracker, options->tracker_tls, std::chrono::milliseconds(2000));
    if (!channel.ok()) {
      Say(StrCat("tracker ", options->tracker, ": ", std::string(channel.status().message())));
      return 2;
    }
    wire::AgentRegistrationOptions registration_options;
    v1::RegisterRequest& request = registration_options.request;
    request.set_key(options->key);
    *request.mutable_facts() = server_options.identity.facts;
    // An IPv6 host is bracketed, so that the address parses as HOST:PORT (proto/host_port.h).
    const std::string host = ResolveAdvertiseHost(*options);
    request.set_address(StrCat(host.find(':') != std::string::npos ? StrCat("[", host, "]") : host, ":",
                               (*server)->port()));
    request.set_capacity(options->capacity);
    request.set_agent_name(options->name.empty() ? ResolveAdvertiseHost(*options) : options->name);
    registration_options.token = *token;
    if (!options->quiet) registration_options.log = Say;
    registration = std::make_unique<wire::AgentRegistration>(*channel, registration_options);
    registration->Start();
  }
  std::printf("tunefarm agent listening on %s\n", (*server)->address().c_str());
  std::fflush(stdout);

  const int sig = wire::WaitForTerminationSignal();
  Say(StrCat("stopping on signal ", sig));
  if (registration != nullptr) registration->Stop();  // unregisters: leases freed at once
  (*server)->Stop();
  return 0;
}

}  // namespace tunefarm::agent
