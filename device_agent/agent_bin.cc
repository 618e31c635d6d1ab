// tunefarm-agent: a standalone device agent, until the `tunefarm` CLI hosts the subcommand.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

#include "device_agent/agent_main.h"

int main(int argc, char** argv) {
  // Tests spawn this binary: if the test process dies, the agent must not outlive it.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) return 1;
  return tunefarm::agent::RunAgentCommand(argc, argv);
}
