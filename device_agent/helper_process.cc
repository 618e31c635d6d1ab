#include "device_agent/helper_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include "common/strings.h"
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
  int Release() { return std::exchange(fd_, -1); }

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

// Configures the child: stdin on `job_read` (the candidates), stdout on /dev/null, stderr
// shared with the agent (the helper's own diagnostics), the pipe as kResultFd, every other
// descriptor closed; default signal handling and an empty mask; a new process group. Neither
// descriptor may be below kResultFd + 1 (see MoveAbove).
int Configure(SpawnSetup& setup, int job_read, int pipe_write) {
  // dup2 clears close-on-exec on the copies.
  int rc = posix_spawn_file_actions_adddup2(&setup.actions, job_read, STDIN_FILENO);
  if (rc == 0) {
    rc = posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  }
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

// A descriptor numbered above kResultFd (close-on-exec), so that the child's dup2 onto 0 and
// kResultFd cannot overwrite the other one first; the old one is closed.
bool MoveAbove(Fd& fd) {
  if (fd.get() > kResultFd) return true;
  fd.Reset(fcntl(fd.get(), F_DUPFD_CLOEXEC, kResultFd + 1));
  return fd.get() >= 0;
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

absl::StatusOr<std::unique_ptr<HelperProcess>> HelperProcess::Spawn(
    const std::string& path, const std::vector<std::string>& args) {
  int pipe_fds[2], job_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return absl::InternalError(StrCat("pipe for the measure helper: ", std::strerror(errno)));
  }
  Fd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  // A socket rather than a pipe, so that a write to a helper that is gone fails with EPIPE
  // (MSG_NOSIGNAL) instead of raising SIGPIPE in the agent.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, job_fds) != 0) {
    return absl::InternalError(StrCat("socket for the measure helper: ", std::strerror(errno)));
  }
  Fd job_write(job_fds[0]), job_read(job_fds[1]);
  if (!MoveAbove(write_end) || !MoveAbove(job_read)) {
    return absl::InternalError("cannot move the helper's descriptors");
  }
  // The child's end must block: a kernel's output must not get EAGAIN.
  fcntl(write_end.get(), F_SETFL, 0);

  std::vector<std::string> argv_text = {path};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<std::string> env_text = HelperEnvironment();
  std::vector<char*> argv, envp;
  for (std::string& a : argv_text) argv.push_back(a.data());
  for (std::string& e : env_text) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);

  SpawnSetup setup;
  if (const int rc = Configure(setup, job_read.get(), write_end.get()); rc != 0) {
    return absl::InternalError(StrCat("posix_spawn setup: ", std::strerror(rc)));
  }
  std::unique_ptr<HelperProcess> helper(new HelperProcess());
  helper->started_unix_us_ = UnixMicrosNow();
  if (const int rc = posix_spawn(&helper->pid_, path.c_str(), &setup.actions, &setup.attr,
                                 argv.data(), envp.data());
      rc != 0) {
    helper->reaped_ = true;  // nothing to kill
    return absl::FailedPreconditionError(
        StrCat("cannot start the measure helper ", path, ": ", std::strerror(rc)));
  }
  // Only the child holds these ends now: its exit gives end of file on the pipe.
  write_end.Reset();
  job_read.Reset();
  helper->pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, helper->pid_, 0));
  helper->results_ = read_end.Release();
  helper->input_ = job_write.Release();
  return helper;
}

HelperProcess::~HelperProcess() {
  Kill();
  for (int fd : {pidfd_, input_, results_}) {
    if (fd >= 0) close(fd);
  }
}

bool HelperProcess::Send(std::string_view text) {
  while (!text.empty() && input_ >= 0) {
    const ssize_t n = send(input_, text.data(), text.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return input_ >= 0;
}

void HelperProcess::CloseInput() {
  if (input_ >= 0) close(input_);
  input_ = -1;
}

// True once the helper has ended; it stays a zombie (WNOWAIT), so its number, which is also
// its process group's, cannot be reused before Kill's killpg.
bool HelperProcess::HasEnded() const {
  if (reaped_) return true;
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid_;
}

// Appends what the pipe has now (a bounded amount, so that a kernel writing without pause
// cannot keep us from the deadline); closes it at end of file.
void HelperProcess::Drain() {
  if (results_ < 0) return;
  char buffer[16384];
  for (int reads = 0; reads < 64; ++reads) {
    const ssize_t n = read(results_, buffer, sizeof buffer);
    if (n > 0) {
      const size_t room = kMaxHelperOutputBytes - std::min(output_.size(), kMaxHelperOutputBytes);
      output_.append(buffer, std::min(static_cast<size_t>(n), room));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {  // end of file
      close(results_);
      results_ = -1;
    }
    return;  // EAGAIN: open but empty
  }
}

HelperProcess::Wait HelperProcess::WaitFor(Clock::time_point deadline,
                                           const std::atomic<bool>* cancelled,
                                           const std::function<bool(std::string_view)>& done) {
  while (true) {
    Drain();
    if (done && done(output_)) return Wait::kDone;
    if (HasEnded()) {
      Drain();  // what it wrote just before it ended
      return done && done(output_) ? Wait::kDone : Wait::kEnded;
    }
    if (cancelled != nullptr && cancelled->load()) return Wait::kCancelled;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return Wait::kTimedOut;
    auto wait = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) +
                             std::chrono::milliseconds(1),
                         kCancelPoll);
    if (pidfd_ < 0) wait = std::min(wait, std::chrono::milliseconds(1));
    // A closed pipe stays readable; it is left out once it hit end of file.
    pollfd polled[2] = {{results_, POLLIN, 0}, {pidfd_, POLLIN, 0}};
    pollfd* first = results_ >= 0 ? &polled[0] : &polled[1];
    const nfds_t count = (results_ >= 0 ? 1 : 0) + (pidfd_ >= 0 ? 1 : 0);
    if (count == 0) {
      std::this_thread::sleep_for(wait);
    } else {
      poll(first, count, static_cast<int>(wait.count()));
    }
  }
}

std::string HelperProcess::TakeOutput(size_t bytes) {
  std::string taken = output_.substr(0, bytes);
  output_.erase(0, bytes);
  return taken;
}

void HelperProcess::Kill() {
  if (reaped_) return;
  reaped_ = true;
  // Also takes down anything the kernel started.
  killpg(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  Drain();
  exited_ = WIFEXITED(status);
  exit_code_ = exited_ ? WEXITSTATUS(status) : 0;
  signal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

absl::StatusOr<HelperRun> RunHelper(const HelperLaunch& launch) {
  HelperRun run;
  run.started_unix_us = UnixMicrosNow();
  const Clock::time_point deadline = Clock::now() + launch.timeout;
  absl::StatusOr<std::unique_ptr<HelperProcess>> helper =
      HelperProcess::Spawn(launch.path, launch.args);
  if (!helper.ok()) return helper.status();
  (*helper)->CloseInput();
  const HelperProcess::Wait wait = (*helper)->WaitFor(deadline, launch.cancelled, nullptr);
  (*helper)->Kill();
  run.finished_unix_us = UnixMicrosNow();
  run.timed_out = wait == HelperProcess::Wait::kTimedOut;
  run.cancelled = wait == HelperProcess::Wait::kCancelled;
  run.output = (*helper)->TakeOutput();
  run.exited = (*helper)->exited();
  run.exit_code = (*helper)->exit_code();
  run.signal = (*helper)->signal();
  return run;
}

}  // namespace tunefarm::agent
