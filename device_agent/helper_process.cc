#include "device_agent/helper_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "compiler/common/strings.h"
#include "absl/status/status.h"

extern char** environ;

namespace tunefarm::agent {
namespace {

using Clock = std::chrono::steady_clock;

// How often a wait wakes up to look at the cancellation flag.
constexpr std::chrono::milliseconds kCancelPoll{20};

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// Owns the posix_spawn attribute objects.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// Configures the child: stdin/stdout on /dev/null, stderr shared with the agent (the helper's
// own diagnostics), the pipe as kResultFd, every other descriptor closed; default signal
// handling and an empty mask; a new process group.
int Configure(SpawnSetup& setup, int pipe_write) {
  int rc = posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (rc == 0) {
    rc = posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  }
  // dup2 clears close-on-exec on the copy; pipe_write itself is never kResultFd (see caller).
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(&setup.actions, pipe_write, kResultFd);
  // gRPC's sockets, epoll and event fds, the cache directory: none of it reaches a kernel.
  if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&setup.actions, kResultFd + 1);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  if (rc == 0) rc = posix_spawnattr_setsigmask(&setup.attr, &none);
  if (rc == 0) rc = posix_spawnattr_setsigdefault(&setup.attr, &all);
  if (rc == 0) rc = posix_spawnattr_setpgroup(&setup.attr, 0);
  if (rc == 0) {
    rc = posix_spawnattr_setflags(
        &setup.attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  }
  return rc;
}

// Appends what the pipe has now (a bounded amount, so that a kernel writing without pause
// cannot keep us from the deadline); false once it reached end of file.
bool Drain(int fd, std::string* output) {
  char buffer[16384];
  for (int reads = 0; reads < 64; ++reads) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      const size_t room = kMaxHelperOutputBytes - std::min(output->size(), kMaxHelperOutputBytes);
      output->append(buffer, std::min(static_cast<size_t>(n), room));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0;  // EAGAIN: open but empty; 0: end of file
  }
  return true;
}

// True once `pid` has ended; it stays a zombie (WNOWAIT), so its number, which is also its
// process group's, cannot be reused before killpg.
bool HasEnded(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

}  // namespace

std::vector<std::string> HelperEnvironment() {
  std::vector<std::string> env;
  for (const char* name : {"PATH", "LD_LIBRARY_PATH"}) {
    if (const char* value = std::getenv(name); value != nullptr) {
      env.push_back(StrCat(name, "=", value));
    }
  }
  return env;
}

int64_t UnixMicrosNow() {
  static const auto anchor_steady = Clock::now();
  static const auto anchor_unix = std::chrono::system_clock::now();
  const auto now = anchor_unix + (Clock::now() - anchor_steady);
  return std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
}

absl::StatusOr<HelperRun> RunHelper(const HelperLaunch& launch) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return absl::InternalError(StrCat("pipe for the measure helper: ", std::strerror(errno)));
  }
  Fd read_end(fds[0]);
  Fd write_end(fds[1]);
  if (write_end.get() == kResultFd) {  // dup2 onto itself would keep close-on-exec
    write_end.Reset(fcntl(kResultFd, F_DUPFD_CLOEXEC, kResultFd + 1));
    if (write_end.get() < 0) return absl::InternalError("cannot move the helper's pipe");
  }
  // The child's end must block: a kernel's output must not get EAGAIN.
  fcntl(write_end.get(), F_SETFL, 0);

  std::vector<std::string> argv_text = {launch.path};
  argv_text.insert(argv_text.end(), launch.args.begin(), launch.args.end());
  std::vector<std::string> env_text = HelperEnvironment();
  std::vector<char*> argv, envp;
  for (std::string& a : argv_text) argv.push_back(a.data());
  for (std::string& e : env_text) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);

  SpawnSetup setup;
  if (const int rc = Configure(setup, write_end.get()); rc != 0) {
    return absl::InternalError(StrCat("posix_spawn setup: ", std::strerror(rc)));
  }
  HelperRun run;
  run.started_unix_us = UnixMicrosNow();
  const Clock::time_point deadline = Clock::now() + launch.timeout;
  pid_t pid = 0;
  if (const int rc = posix_spawn(&pid, launch.path.c_str(), &setup.actions, &setup.attr,
                                 argv.data(), envp.data());
      rc != 0) {
    return absl::FailedPreconditionError(
        StrCat("cannot start the measure helper ", launch.path, ": ", std::strerror(rc)));
  }
  write_end.Reset();  // only the child holds it now: its exit gives end of file
  Fd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));  // -1 on old kernels: we poll

  bool pipe_open = true;
  while (!HasEnded(pid)) {
    if (launch.cancelled != nullptr && launch.cancelled->load()) {
      run.cancelled = true;
      break;
    }
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      run.timed_out = true;
      break;
    }
    auto wait = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) +
                             std::chrono::milliseconds(1),
                         kCancelPoll);
    if (pidfd.get() < 0) wait = std::min(wait, std::chrono::milliseconds(1));
    pollfd polled[2] = {{read_end.get(), POLLIN, 0}, {pidfd.get(), POLLIN, 0}};
    // A closed pipe stays readable; leave it out once it hit end of file.
    pollfd* first = pipe_open ? &polled[0] : &polled[1];
    const nfds_t count = (pipe_open ? 1 : 0) + (pidfd.get() >= 0 ? 1 : 0);
    if (count == 0) {
      std::this_thread::sleep_for(wait);
    } else if (poll(first, count, static_cast<int>(wait.count())) > 0 && pipe_open &&
               (polled[0].revents & (POLLIN | POLLHUP)) != 0) {
      pipe_open = Drain(read_end.get(), &run.output);
    }
  }
  // Also takes down anything the kernel started, while the zombie still holds the group id.
  killpg(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.finished_unix_us = UnixMicrosNow();
  if (pipe_open) Drain(read_end.get(), &run.output);
  run.exited = WIFEXITED(status);
  run.exit_code = run.exited ? WEXITSTATUS(status) : 0;
  run.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return run;
}

}  // namespace tunefarm::agent
