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
    {"tuner", "serve the Tuner: tuning jobs on the farm, results in a database (--db FILE)",
     tunefarm::cli::RunTunerCommand},
    {"tune", "tune the kernels of an ONNX model (a local farm, or --tracker and --key)",
     tunefarm::cli::RunTuneCommand},
    {"jobs", "list, follow or cancel the jobs of a tuner service (--tuner HOST:PORT)", tunefarm::cli::RunJobsCommand},
    {"db", "query, export, import and check a tuning database (--db FILE)",
     tunefarm::cli::RunDbCommand},
    {"compile", "compile an ONNX model into one artifact for the deploy runtime (-o MODEL.so)",
     tunefarm::cli::RunCompileCommand},
    {"run", "run a compiled model on inputs from files (--input [NAME=]FILE ...)", tunefarm::cli::RunRunCommand},
    {"inspect", "show the ops, fused kernels, layout and memory plan of an .onnx or .so",
     tunefarm::cli::RunInspectCommand},
    {"bench", "time a compiled model: latency min/median/max", tunefarm::cli::RunBenchCommand},
    {"version", "print the version of this binary and of its database schema",
     tunefarm::cli::RunVersionCommand},
};

}  // namespace

int main(int argc, char** argv) {
  return tunefarm::cli::Dispatch("tunefarm", kSubcommands, argc, argv);
}
