// tunefarm_fake_agent: a device agent that only registers and heartbeats (the real agent,
// device_agent/, also serves DeviceAgent). Lets the farm tests run agents as real processes.
//
//   tunefarm_fake_agent --tracker HOST:PORT --key K --address A [--capacity N] [--name S]
//                       [--cpu-model S] [--cores N] [--heartbeat-ms N] [--max-backoff-ms N]
//                       [--token-file F]   (else $TUNEFARM_TOKEN)
//
// SIGTERM: unregister and exit 0.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "proto/agent_registration.h"
#include "proto/auth.h"
#include "proto/credentials.h"
#include "proto/termination.h"
#include "common/command_flags.h"

namespace wire = tunefarm::wire;

int main(int argc, char** argv) {
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test that started us
  if (getppid() != parent) return 1;
  wire::BlockTerminationSignals();

  static const tunefarm::CommandSpec spec{"fake agent",
                                          "",
                                          {{"tracker", 0, "HOST:PORT", ""},
                                           {"key", 0, "K", ""},
                                           {"address", 0, "HOST:PORT", ""},
                                           {"capacity", 0, "N", ""},
                                           {"name", 0, "N", ""},
                                           {"cpu-model", 0, "S", ""},
                                           {"cores", 0, "N", ""},
                                           {"heartbeat-ms", 0, "N", ""},
                                           {"max-backoff-ms", 0, "N", ""},
                                           {"token-file", 0, "FILE", ""}},
                                          {}};
  absl::StatusOr<tunefarm::ParsedFlags> line = tunefarm::ParsedFlags::Parse(spec, argc, argv);
  if (!line.ok()) {
    std::fprintf(stderr, "fake agent: %s\n", std::string(line.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<int64_t> capacity = line->GetInt("capacity", 1, 1, 1024);
  absl::StatusOr<int64_t> cores = line->GetInt("cores", 4, 1, 4096);
  absl::StatusOr<int64_t> heartbeat = line->GetInt("heartbeat-ms", 0, 0, 600000);
  absl::StatusOr<int64_t> backoff = line->GetInt("max-backoff-ms", 1000, 1, 600000);
  absl::StatusOr<std::string> token = wire::LoadToken(line->Get("token-file"));
  for (const absl::Status& s :
       {capacity.status(), cores.status(), heartbeat.status(), backoff.status(), token.status()}) {
    if (!s.ok()) {
      std::fprintf(stderr, "fake agent: %s\n", std::string(s.message()).c_str());
      return 2;
    }
  }
  const std::chrono::milliseconds max_backoff(*backoff);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      wire::MakeChannel(line->Get("tracker"), {}, max_backoff);
  if (!channel.ok()) {
    std::fprintf(stderr, "fake agent: %s\n", std::string(channel.status().message()).c_str());
    return 2;
  }

  const std::string address = line->Get("address");
  wire::AgentRegistrationOptions options;
  options.request.set_key(line->Get("key"));
  options.request.set_address(address);
  options.request.set_capacity(static_cast<int>(*capacity));
  options.request.set_agent_name(line->Get("name", "fake-agent"));
  tunefarm::v1::HardwareFacts* facts = options.request.mutable_facts();
  facts->set_cpu_vendor("FakeVendor");
  facts->set_cpu_model(line->Get("cpu-model", "Fake CPU"));
  facts->set_physical_cores(static_cast<int>(*cores));
  facts->set_logical_cpus(static_cast<int>(*cores) * 2);
  facts->add_isa_flags("avx2");
  facts->add_isa_flags("fma");
  facts->set_l1d_cache_bytes(32 << 10);
  facts->set_l2_cache_bytes(512 << 10);
  facts->set_os("Linux");
  facts->set_arch("x86_64");
  options.token = *token;
  options.heartbeat_interval = std::chrono::milliseconds(*heartbeat);
  options.min_backoff = std::min(std::chrono::milliseconds(20), max_backoff);
  options.max_backoff = max_backoff;
  options.rpc_timeout = std::chrono::milliseconds(1000);
  options.log = [address](const std::string& text) {
    std::fprintf(stderr, "fake agent %s: %s\n", address.c_str(), text.c_str());
  };

  wire::AgentRegistration registration(*channel, options);
  registration.Start();
  wire::WaitForTerminationSignal();
  registration.Stop();
  return 0;
}
