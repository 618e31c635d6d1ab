#include "tracker/tracker_main.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/command_flags.h"
#include "proto/auth.h"
#include "proto/credentials.h"
#include "proto/host_port.h"
#include "proto/refusal_log.h"
#include "proto/termination.h"
#include "proto/tracker_client.h"
#include "tracker/devices_format.h"
#include "tracker/tracker_server.h"

namespace tunefarm::tracker {
namespace {

const CommandSpec& TrackerSpec() {
  static const CommandSpec spec{
      "tracker",
      "Serves the farm's device registry and leases.",
      {{"port", 0, "P", "port to listen on (default 9190; 0 picks a free one)"},
       {"host", 0, "H", "address to listen on (default 0.0.0.0)"},
       {"token-file", 0, "FILE", "shared secret (mode 0600); else $TUNEFARM_TOKEN"},
       {"agent-timeout-ms", 0, "N", "drop an agent silent this long and revoke its leases (10000)"},
       {"heartbeat-ms", 0, "N", "heartbeat period asked of agents (agent timeout / 5)"},
       {"tls-cert", 0, "PEM", "serve TLS with this certificate (with --tls-key)"},
       {"tls-key", 0, "PEM", "the certificate's private key"},
       {"tls-ca", 0, "PEM", "demand client certificates signed by this CA"},
       {"quiet", 0, "", "log only refused calls"}},
      {}};
  return spec;
}

const CommandSpec& DevicesSpec() {
  static const CommandSpec spec{
      "devices",
      "Lists the tracker's device pools and devices.",
      {{"tracker", 0, "HOST:PORT", "the tracker", true},
       {"key", 0, "K", "only this pool"},
       {"json", 0, "", "print JSON instead of a table"},
       {"token-file", 0, "FILE", "shared secret; else $TUNEFARM_TOKEN"},
       {"tls-ca", 0, "PEM", "dial with TLS, trusting this CA"},
       {"tls-cert", 0, "PEM", "our certificate, for mutual TLS"},
       {"tls-key", 0, "PEM", "its private key"},
       {"timeout-ms", 0, "N", "how long to wait for the tracker (5000)"}},
      {}};
  return spec;
}

void Fail(const char* command, const std::string& message) {
  std::fprintf(stderr, "tunefarm %s: %s\n", command, message.c_str());
}

}  // namespace

int RunTrackerCommand(int argc, char** argv) {
  wire::BlockTerminationSignals();
  absl::StatusOr<ParsedFlags> line = ParsedFlags::Parse(TrackerSpec(), argc, argv);
  if (!line.ok()) {
    Fail("tracker", std::string(line.status().message()));
    std::fputs(Usage(TrackerSpec()).c_str(), stderr);
    return 2;
  }
  if (line->help()) {
    std::fputs(Usage(TrackerSpec()).c_str(), stdout);
    return 0;
  }
  absl::StatusOr<int64_t> port = line->GetInt("port", 9190, 0, 65535);
  absl::StatusOr<int64_t> timeout = line->GetInt("agent-timeout-ms", 10000, 1, 86400000);
  absl::StatusOr<int64_t> heartbeat = line->GetInt("heartbeat-ms", 0, 0, 86400000);
  for (const absl::Status& s : {port.status(), timeout.status(), heartbeat.status()}) {
    if (!s.ok()) {
      Fail("tracker", std::string(s.message()));
      return 2;
    }
  }
  absl::StatusOr<std::string> token = wire::LoadToken(line->Get("token-file"));
  if (!token.ok()) {
    Fail("tracker", std::string(token.status().message()));
    return 2;
  }

  TrackerServerOptions options;
  options.host = line->Get("host", "0.0.0.0");
  options.port = static_cast<int>(*port);
  options.token = *token;
  options.tls = {line->Get("tls-cert"), line->Get("tls-key"), line->Get("tls-ca")};
  std::string token_warning;
  if (absl::Status s = wire::CheckServerToken(options.token, options.host, &token_warning); !s.ok()) {
    Fail("tracker", std::string(s.message()));
    return 2;
  }
  if (!token_warning.empty()) Fail("tracker", token_warning);
  options.tracker.agent_timeout = std::chrono::milliseconds(*timeout);
  options.tracker.heartbeat_interval = std::chrono::milliseconds(*heartbeat);
  if (!line->Has("quiet")) {
    options.tracker.log = [](const std::string& text) {
      std::fprintf(stderr, "tunefarm tracker: %s\n", text.c_str());
    };
  }
  // Refused calls are logged even with --quiet: they are what an operator must see.
  wire::SetRefusalLog([](const std::string& line) { Fail("tracker", line); });
  absl::StatusOr<std::unique_ptr<TrackerServer>> server = TrackerServer::Start(options);
  if (!server.ok()) {
    Fail("tracker", std::string(server.status().message()));
    return 1;
  }
  if (options.tls.cert_file.empty() && !wire::IsLoopbackHost(options.host)) {
    Fail("tracker", "warning: plaintext on a non-loopback address; the token crosses the network "
                    "in the clear (see docs/wire.md for TLS)");
  }
  std::printf("tunefarm tracker listening on %s\n", (*server)->address().c_str());
  std::fflush(stdout);

  const int sig = wire::WaitForTerminationSignal();
  Fail("tracker", absl::StrCat("stopping on signal ", sig));
  (*server)->Stop();
  return 0;
}

int RunDevicesCommand(int argc, char** argv) {
  absl::StatusOr<ParsedFlags> line = ParsedFlags::Parse(DevicesSpec(), argc, argv);
  if (!line.ok()) {
    Fail("devices", std::string(line.status().message()));
    std::fputs(Usage(DevicesSpec()).c_str(), stderr);
    return 2;
  }
  if (line->help()) {
    std::fputs(Usage(DevicesSpec()).c_str(), stdout);
    return 0;
  }
  const std::string target = line->Get("tracker");
  absl::StatusOr<int64_t> timeout = line->GetInt("timeout-ms", 5000, 1, 3600000);
  if (!timeout.ok()) {
    Fail("devices", std::string(timeout.status().message()));
    return 2;
  }
  absl::StatusOr<std::string> token = wire::LoadToken(line->Get("token-file"));
  if (!token.ok()) {
    Fail("devices", std::string(token.status().message()));
    return 2;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = wire::MakeChannel(
      target, {line->Get("tls-cert"), line->Get("tls-key"), line->Get("tls-ca")});
  if (!channel.ok()) {
    Fail("devices", std::string(channel.status().message()));
    return 2;
  }
  wire::TrackerClient client(*channel, *token, std::chrono::milliseconds(*timeout));
  absl::StatusOr<v1::ListDevicesReply> reply = client.ListDevices(line->Get("key"));
  if (!reply.ok()) {
    Fail("devices", absl::StrCat("cannot list devices of tracker ", target, ": ",
                                 reply.status().ToString()));
    return 1;
  }
  const std::string text =
      line->Has("json") ? FormatDevicesJson(*reply) : FormatDevicesTable(*reply);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace tunefarm::tracker
