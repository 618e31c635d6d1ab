// tunefarm_fake_client: acquires a device and holds it until killed, so a test can crash a
// lease holder. Prints "granted AGENT_ID ADDRESS" once the lease is granted.
//
//   tunefarm_fake_client --tracker HOST:PORT --key K [--priority N] [--name S]   ($TUNEFARM_TOKEN)
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "proto/auth.h"
#include "proto/credentials.h"
#include "proto/termination.h"
#include "proto/tracker_client.h"
#include "common/command_flags.h"

namespace wire = tunefarm::wire;

int main(int argc, char** argv) {
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 1;
  wire::BlockTerminationSignals();

  static const tunefarm::CommandSpec spec{
      "fake client", "", {{"tracker", 0, "HOST:PORT", ""}, {"key", 0, "K", ""}, {"priority", 0, "N", ""}, {"name", 0, "N", ""}}, {}};
  absl::StatusOr<tunefarm::ParsedFlags> line = tunefarm::ParsedFlags::Parse(spec, argc, argv);
  absl::StatusOr<std::string> token = wire::LoadToken("");
  if (!line.ok() || !token.ok()) {
    std::fprintf(stderr, "fake client: %s\n",
                 (line.ok() ? token.status() : line.status()).ToString().c_str());
    return 2;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = wire::MakeChannel(line->Get("tracker"), {});
  if (!channel.ok()) return 2;
  wire::TrackerClient client(*channel, *token);
  tunefarm::v1::AcquireRequest request;
  request.set_key(line->Get("key"));
  request.set_priority(static_cast<int>(line->GetInt("priority", 0, -1000, 1000).value_or(0)));
  request.set_client_name(line->Get("name", "fake-client"));
  std::unique_ptr<wire::Lease> lease = client.Acquire(request);
  absl::StatusOr<tunefarm::v1::AcquireEvent::Granted> granted =
      lease->WaitGranted(std::chrono::seconds(30));
  if (!granted.ok()) {
    std::printf("error %s\n", granted.status().ToString().c_str());
    return 1;
  }
  std::printf("granted %s %s\n", granted->agent_id().c_str(), granted->device_address().c_str());
  std::fflush(stdout);
  wire::WaitForTerminationSignal();
  return 0;
}
