#include "tests/cli/cli_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/status/status.h"
#include "common/strings.h"
#include "gtest/gtest.h"

extern char** environ;

namespace tunefarm::cli::testing {
namespace {

std::vector<std::string> MergedEnvironment(const std::vector<std::string>& extra_env) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    env[entry.substr(0, entry.find('='))] = entry;
  }
  for (const std::string& entry : extra_env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) {
      env.erase(entry);
    } else {
      env[entry.substr(0, eq)] = entry;
    }
  }
  std::vector<std::string> merged;
  for (auto& [name, entry] : env) merged.push_back(entry);
  return merged;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

std::string TunefarmPath() { return TUNEFARM_CLI_BIN; }

absl::StatusOr<std::unique_ptr<CliProcess>> CliProcess::Start(
    const std::vector<std::string>& args, const std::vector<std::string>& extra_env,
    const std::string& stdin_path) {
  const std::string input = stdin_path.empty() ? "/dev/null" : stdin_path;
  std::vector<std::string> argv = {TunefarmPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env = MergedEnvironment(extra_env);
  std::vector<char*> argp = Pointers(argv);
  std::vector<char*> envp = Pointers(env);

  int out[2];
  int err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    return absl::InternalError(StrCat("pipe: ", std::strerror(errno)));
  }
  const pid_t parent = getpid();
  // fork + exec rather than posix_spawn: the child must ask for PDEATHSIG before exec. Only
  // async-signal-safe calls between the two.
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int in_fd = open(input.c_str(), O_RDONLY | O_CLOEXEC);
    if (in_fd < 0 || dup2(in_fd, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
        dup2(err[1], STDERR_FILENO) < 0) {
      _exit(127);
    }
    execve(argp[0], argp.data(), envp.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  return std::unique_ptr<CliProcess>(new CliProcess(pid, out[0], err[0]));
}

CliProcess::~CliProcess() {
  if (!reaped_) {
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

absl::StatusOr<bool> CliProcess::Pump(std::chrono::steady_clock::time_point deadline) {
  std::vector<pollfd> fds;
  if (out_fd_ >= 0) fds.push_back({out_fd_, POLLIN, 0});
  if (err_fd_ >= 0) fds.push_back({err_fd_, POLLIN, 0});
  if (fds.empty()) return false;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  const int ready = poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(left.count(), 0)));
  if (ready == 0) return absl::DeadlineExceededError(StrCat("tunefarm pid ", pid_, ": no output in time"));
  if (ready < 0) {
    if (errno == EINTR) return true;
    return absl::InternalError(StrCat("poll: ", std::strerror(errno)));
  }
  for (const pollfd& p : fds) {
    if (p.revents == 0) continue;
    char chunk[4096];
    const ssize_t n = read(p.fd, chunk, sizeof chunk);
    const bool is_out = p.fd == out_fd_;
    if (n > 0) {
      (is_out ? out_ : err_).append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      close(p.fd);
      (is_out ? out_fd_ : err_fd_) = -1;
    }
  }
  return true;
}

absl::StatusOr<std::string> CliProcess::ReadLine(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (size_t nl = out_.find('\n'); nl != std::string::npos) {
      std::string line = out_.substr(0, nl);
      out_.erase(0, nl + 1);
      return line;
    }
    if (out_fd_ < 0) return absl::OutOfRangeError(StrCat("tunefarm pid ", pid_, ": stdout closed"));
    absl::StatusOr<bool> more = Pump(deadline);
    if (!more.ok()) return more.status();
  }
}

void CliProcess::Signal(int sig) {
  if (!reaped_) kill(pid_, sig);
}

absl::StatusOr<int> CliProcess::Finish(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    absl::StatusOr<bool> more = Pump(deadline);
    if (!more.ok()) {
      Signal(SIGKILL);
      return more.status();
    }
    if (!*more) break;
  }
  // Both pipes closed: the child has exited (or closed them itself and is about to).
  int status = 0;
  while (true) {
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR) return absl::InternalError(StrCat("waitpid: ", std::strerror(errno)));
    if (std::chrono::steady_clock::now() >= deadline) {
      Signal(SIGKILL);
      return absl::DeadlineExceededError(StrCat("tunefarm pid ", pid_, " still running"));
    }
    usleep(2000);
  }
  reaped_ = true;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

CliResult RunTunefarm(const std::vector<std::string>& args, const std::vector<std::string>& extra_env,
                      const std::string& stdin_path) {
  CliResult result;
  absl::StatusOr<std::unique_ptr<CliProcess>> process =
      CliProcess::Start(args, extra_env, stdin_path);
  if (!process.ok()) {
    ADD_FAILURE() << process.status();
    return result;
  }
  absl::StatusOr<int> code = (*process)->Finish(std::chrono::seconds(30));
  if (!code.ok()) {
    ADD_FAILURE() << "tunefarm " << StrJoin(args, " ") << ": " << code.status();
  } else {
    result.exit_code = *code;
  }
  result.out = (*process)->out();
  result.err = (*process)->err();
  return result;
}


}  // namespace tunefarm::cli::testing
