// Entry points of `tunefarm tracker` and `tunefarm devices`, for the CLI to dispatch to.
// argv[0] is the subcommand's name (ignored); its options follow. Returns the exit code:
// 0 success, 1 runtime failure, 2 bad usage.
#ifndef TUNEFARM_TRACKER_TRACKER_MAIN_H_
#define TUNEFARM_TRACKER_TRACKER_MAIN_H_

namespace tunefarm::tracker {

// Serves the Tracker until SIGTERM/SIGINT. Prints "tunefarm tracker listening on HOST:PORT"
// on stdout once it accepts calls. Call it before the process starts any thread: it blocks
// the termination signals so that a sigwait can take them.
int RunTrackerCommand(int argc, char** argv);

// Lists pools and devices of a tracker, as a table or (--json) JSON.
int RunDevicesCommand(int argc, char** argv);

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_TRACKER_MAIN_H_
