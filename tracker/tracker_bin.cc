// tunefarm-tracker: a standalone tracker for tests and quick farms, until the `tunefarm` CLI
// hosts the subcommands. `tunefarm-tracker [options]` serves; `tunefarm-tracker devices ...`
// lists.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include "tracker/tracker_main.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "devices") == 0) {
    return tunefarm::tracker::RunDevicesCommand(argc - 1, argv + 1);
  }
  // Tests spawn this binary: if the test process dies, the server must not outlive it.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) return 1;
  return tunefarm::tracker::RunTrackerCommand(argc, argv);
}
