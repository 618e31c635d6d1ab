// `tunefarm tuner`: the Tuner gRPC service (docs/tuner.md). Jobs submitted to it run one at a
// time on devices leased from --tracker; every measurement goes into --db, where a restarted
// tuner finds its unfinished jobs and resumes them.
#include <cstdio>

#include "cli/command.h"
#include "cli/subcommands.h"
#include "common/strings.h"

#ifdef TUNEFARM_HAVE_TUNER
#include "proto/auth.h"
#include "proto/host_port.h"
#include "proto/refusal_log.h"
#include "proto/termination.h"
#include "tuner/tuner_server.h"
#endif

namespace tunefarm::cli {
namespace {

const CommandSpec& Spec() {
  static const CommandSpec spec{
      "tuner",
      "Serves the Tuner: submitted tuning jobs run on devices leased from the tracker, every "
      "measurement goes into the database, and unfinished jobs resume when it starts.",
      {{"db", 0, "FILE", "tuning database (created if missing); must be on a local disk", true},
       {"tracker", 0, "HOST:PORT", "the farm's tracker", true},
       {"port", 0, "P", "port to listen on (default 9192; 0 picks a free one)"},
       {"host", 0, "H", "address to listen on (default 0.0.0.0)"},
       {"token-file", 0, "FILE", "shared secret (mode 0600); else $TUNEFARM_TOKEN"},
       {"batch", 0, "N", "candidates built, then measured, per round (default 8)"},
       {"max-devices", 0, "N", "devices of a job's key it measures on at once, when free (default 8)"},
       {"min-repeat-ms", 0, "N", "shortest repeat when timing a candidate (default 20)"},
       {"tls-cert", 0, "PEM", "serve TLS with this certificate"},
       {"tls-key", 0, "PEM", "and this key"},
       {"tls-ca", 0, "PEM", "demand client certificates signed by this CA"},
       {"farm-ca", 0, "PEM", "CA of the tracker's and agents' TLS certificates (TLS to the farm)"},
       {"farm-cert", 0, "PEM", "client certificate for a farm that demands one"},
       {"farm-key", 0, "PEM", "its key"},
       {"quiet", 0, "", "no per-job log lines"}},
      {}};
  return spec;
}

}  // namespace

int RunTunerCommand(int argc, char** argv) {
#ifdef TUNEFARM_HAVE_TUNER
  // Before any thread exists, so that every thread inherits the mask and sigwait gets them.
  wire::BlockTerminationSignals();
#endif
  ParseResult parsed = ParseCommandLine(Spec(), argc, argv);
  if (!parsed.flags) return parsed.exit_code;
#ifdef TUNEFARM_HAVE_TUNER
  const ParsedFlags& flags = *parsed.flags;
  auto port = flags.GetInt("port", 9192, 0, 65535);
  if (!port.ok()) return ReportUsageError(Spec(), port.status());
  auto batch = flags.GetInt("batch", 8, 1, 1024);
  if (!batch.ok()) return ReportUsageError(Spec(), batch.status());
  auto max_devices = flags.GetInt("max-devices", 8, 1, 4096);
  if (!max_devices.ok()) return ReportUsageError(Spec(), max_devices.status());
  auto min_repeat = flags.GetInt("min-repeat-ms", 20, 0, 60000);
  if (!min_repeat.ok()) return ReportUsageError(Spec(), min_repeat.status());
  auto token = wire::LoadToken(flags.Get("token-file"));
  if (!token.ok()) return ReportUsageError(Spec(), token.status());
  if (auto address = wire::ParseHostPort(flags.Get("tracker")); !address.ok()) {
    return ReportUsageError(Spec(), address.status());
  }

  tuner::TunerServerOptions options;
  options.host = flags.Get("host", "0.0.0.0");
  options.port = static_cast<int>(*port);
  options.token = *token;
  std::string token_warning;
  if (absl::Status s = wire::CheckServerToken(options.token, options.host, &token_warning); !s.ok()) {
    return ReportUsageError(Spec(), s);
  }
  if (!token_warning.empty()) std::fprintf(stderr, "tunefarm tuner: %s\n", token_warning.c_str());
  wire::SetRefusalLog([](const std::string& line) { std::fprintf(stderr, "tunefarm tuner: %s\n", line.c_str()); });
  options.tls = {flags.Get("tls-cert"), flags.Get("tls-key"), flags.Get("tls-ca")};
  tuner::RunnerOptions& runner = options.jobs.runner;
  runner.db_path = flags.Get("db");
  runner.farm.tracker = flags.Get("tracker");
  runner.farm.tls = {flags.Get("farm-cert"), flags.Get("farm-key"), flags.Get("farm-ca")};
  runner.batch_size = static_cast<int>(*batch);
  runner.max_devices = static_cast<int>(*max_devices);
  runner.min_repeat_ms = static_cast<int>(*min_repeat);
  if (!flags.Has("quiet")) {
    options.jobs.log = [](const std::string& line) { std::fprintf(stderr, "tunefarm tuner: %s\n", line.c_str()); };
  }
  auto server = tuner::TunerServer::Start(std::move(options));
  if (!server.ok()) return ReportFailure("tuner", server.status());
  std::printf("tunefarm tuner listening on %s\n", (*server)->address().c_str());
  std::fflush(stdout);

  const int sig = wire::WaitForTerminationSignal();
  std::fprintf(stderr, "tunefarm tuner: stopping on signal %d\n", sig);
  (*server)->Stop();
  return kExitOk;
#else
  return ReportFailure("tuner", "this tunefarm was built without tuner/ (TUNEFARM_SKIP); rebuild with it");
#endif
}

}  // namespace tunefarm::cli
