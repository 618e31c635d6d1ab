// `tunefarm agent`, built in only when the build has device_agent/ (cli/CMakeLists.txt sets
// TUNEFARM_HAVE_AGENT); otherwise the subcommand says so instead of pretending not to exist.
#include "cli/command.h"
#include "cli/subcommands.h"

#ifdef TUNEFARM_HAVE_AGENT
#include "device_agent/agent_main.h"
#endif

namespace tunefarm::cli {

bool HaveAgent() {
#ifdef TUNEFARM_HAVE_AGENT
  return true;
#else
  return false;
#endif
}

int RunAgentCommand(int argc, char** argv) {
#ifdef TUNEFARM_HAVE_AGENT
  return agent::RunAgentCommand(argc, argv);
#else
  return ReportFailure("agent",
                       "this tunefarm was built without the device agent (device_agent/ was left "
                       "out of the build, e.g. by TUNEFARM_SKIP); rebuild with it");
#endif
}

}  // namespace tunefarm::cli
