// Entry point of `tunefarm agent`, for the CLI to dispatch to. argv[0] is the subcommand's
// name (ignored); its options follow (agent_options.h). Returns the exit code: 0 success,
// 1 runtime failure, 2 bad usage.
#ifndef TUNEFARM_DEVICE_AGENT_AGENT_MAIN_H_
#define TUNEFARM_DEVICE_AGENT_AGENT_MAIN_H_

namespace tunefarm::agent {

// Serves the DeviceAgent until SIGTERM/SIGINT, registered with --tracker when given. Prints
// "tunefarm agent listening on HOST:PORT" on stdout once it accepts calls. Call it before the
// process starts any thread: it blocks the termination signals so that a sigwait can take them.
int RunAgentCommand(int argc, char** argv);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_AGENT_MAIN_H_
