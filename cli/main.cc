// `tunefarm`: one binary, one subcommand per job (docs/cli.md). main() only dispatches: the
// servers (tracker, agent) block the termination signals before any thread exists, so nothing
// here may start a thread first.
#include "cli/dispatch.h"
#include "cli/subcommands.h"
#include "tracker/tracker_main.h"

namespace {

constexpr tunefarm::cli::Subcommand kSubcommands[] = {
    {"tracker", "serve the device registry and leases (--port P)",
     tunefarm::tracker::RunTrackerCommand},
    {"agent", "serve one device: time kernels for the tuner, registered with a tracker",
     tunefarm::cli::RunAgentCommand},
    {"devices", "list the pools and devices of a tracker (--tracker HOST:PORT)",
     tunefarm::tracker::RunDevicesCommand},
    {"db", "query, export, import and check a tuning database (--db FILE)",
     tunefarm::cli::RunDbCommand},
    {"version", "print the version of this binary and of its database schema",
     tunefarm::cli::RunVersionCommand},
};

}  // namespace

int main(int argc, char** argv) {
  return tunefarm::cli::Dispatch("tunefarm", kSubcommands, argc, argv);
}
