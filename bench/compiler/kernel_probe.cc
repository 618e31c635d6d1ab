#include "bench/compiler/kernel_probe.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>

namespace tunefarm::bench {

Probe ProbeInChild(Compiled& kernel, Arrays& args, int threads, double limit_s) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return {};
  }
  if (pid == 0) {
    close(fds[0]);
    deploy::ThreadPool pool(threads);
    double seconds = -1;
    if (CallKernel(kernel, args, &pool)) {
      const Clock::time_point start = Clock::now();
      if (CallKernel(kernel, args, &pool)) seconds = SecondsSince(start);
    }
    const ssize_t written = write(fds[1], &seconds, sizeof seconds);
    _exit(written == sizeof seconds ? 0 : 1);
  }
  close(fds[1]);
  pollfd ready{fds[0], POLLIN, 0};
  double seconds = -1;
  const bool answered = poll(&ready, 1, static_cast<int>(std::ceil(limit_s * 1e3))) > 0 &&
                        read(fds[0], &seconds, sizeof seconds) == sizeof seconds;
  close(fds[0]);
  if (!answered) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!answered) return {WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL ? Probe::kCrashed : Probe::kTimedOut};
  if (seconds < 0) return {Probe::kFailed};
  return {Probe::kOk, seconds};
}

}  // namespace tunefarm::bench
