// The subcommands cli/ implements itself (tracker and devices come from tracker/tracker_main.h).
// Each takes argv[0] = its own name and returns the exit code (cli/command.h).
#pragma once

namespace tunefarm::cli {

// `tunefarm agent`: the device agent, when this build has it (agent_command.cc).
int RunAgentCommand(int argc, char** argv);
// Whether RunAgentCommand serves an agent or only explains that this build has none.
bool HaveAgent();
// `tunefarm db <action>`: the tuning database (db_command.cc).
int RunDbCommand(int argc, char** argv);
// `tunefarm compile|inspect|run|bench`: the graph compiler and the deploy runtime
// (model_*_command.cc).
int RunCompileCommand(int argc, char** argv);
int RunInspectCommand(int argc, char** argv);
int RunRunCommand(int argc, char** argv);
int RunBenchCommand(int argc, char** argv);
// `tunefarm tuner` (serve the Tuner service) and `tunefarm tune` (one job in-process)
// (tuner_command.cc, tune_command.cc).
int RunTunerCommand(int argc, char** argv);
int RunTuneCommand(int argc, char** argv);
// `tunefarm jobs list|watch|cancel`: the jobs of a tuner service (jobs_command.cc).
int RunJobsCommand(int argc, char** argv);

// `tunefarm version` (version_command.cc).
int RunVersionCommand(int argc, char** argv);

}  // namespace tunefarm::cli
