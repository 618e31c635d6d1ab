#include "tracker/tracker_main.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "proto/auth.h"
#include "proto/credentials.h"
#include "proto/host_port.h"
#include "proto/refusal_log.h"
#include "proto/termination.h"
#include "proto/tracker_client.h"
#include "tracker/command_line.h"
#include "tracker/devices_format.h"
#include "tracker/tracker_server.h"

namespace tunefarm::tracker {
namespace {

constexpr char kTrackerUsage[] =
    "usage: tunefarm tracker [--port P] [--host H] [--token-file FILE]\n"
    "                        [--agent-timeout-ms N] [--heartbeat-ms N]\n"
    "                        [--tls-cert PEM --tls-key PEM [--tls-ca PEM]] [--quiet]\n"
    "  --port P              port to listen on (default 9190; 0 picks a free one)\n"
    "  --host H              address to listen on (default 0.0.0.0)\n"
    "  --token-file FILE     shared secret (mode 0600); else $TUNEFARM_TOKEN\n"
    "  --agent-timeout-ms N  drop an agent silent this long and revoke its leases (10000)\n"
    "  --heartbeat-ms N      heartbeat period asked of agents (agent timeout / 5)\n"
    "  --tls-cert/--tls-key  serve TLS with this identity; --tls-ca demands client certs\n";

constexpr char kDevicesUsage[] =
    "usage: tunefarm devices --tracker HOST:PORT [--key K] [--json] [--token-file FILE]\n"
    "                        [--tls-ca PEM [--tls-cert PEM --tls-key PEM]] [--timeout-ms N]\n";

void Fail(const char* command, const std::string& message) {
  std::fprintf(stderr, "tunefarm %s: %s\n", command, message.c_str());
}

}  // namespace

int RunTrackerCommand(int argc, char** argv) {
  wire::BlockTerminationSignals();
  absl::StatusOr<CommandLine> line = CommandLine::Parse(
      argc, argv,
      {"port", "host", "token-file", "agent-timeout-ms", "heartbeat-ms", "tls-cert", "tls-key", "tls-ca"},
      {"help", "quiet"});
  if (!line.ok()) {
    Fail("tracker", std::string(line.status().message()));
    std::fputs(kTrackerUsage, stderr);
    return 2;
  }
  if (line->Has("help")) {
    std::fputs(kTrackerUsage, stdout);
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
  absl::StatusOr<CommandLine> line = CommandLine::Parse(
      argc, argv, {"tracker", "key", "token-file", "tls-ca", "tls-cert", "tls-key", "timeout-ms"},
      {"json", "help"});
  if (!line.ok()) {
    Fail("devices", std::string(line.status().message()));
    std::fputs(kDevicesUsage, stderr);
    return 2;
  }
  if (line->Has("help")) {
    std::fputs(kDevicesUsage, stdout);
    return 0;
  }
  const std::string target = line->Get("tracker");
  if (target.empty()) {
    Fail("devices", "--tracker HOST:PORT is required");
    return 2;
  }
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
