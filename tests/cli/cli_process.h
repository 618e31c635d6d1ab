// Runs the real `tunefarm` binary as a child process, with its stdout and stderr on pipes.
// The child gets PR_SET_PDEATHSIG(SIGKILL), and the destructor kills and reaps it, so neither a
// failing test nor a crashed test process leaves a server behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/common/test_temp_dir.h"

namespace tunefarm::cli::testing {

// The path of the tunefarm binary under test.
std::string TunefarmPath();

class CliProcess {
 public:
  // Starts `tunefarm args...` with this environment plus `extra_env` ("NAME=value", replacing
  // a variable of the same name; "NAME" alone removes it). stdin reads `stdin_path`, or
  // /dev/null when it is empty.
  static absl::StatusOr<std::unique_ptr<CliProcess>> Start(
      const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {},
      const std::string& stdin_path = "");
  ~CliProcess();
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  // The next stdout line without its newline; DeadlineExceeded on timeout, OutOfRange at EOF.
  absl::StatusOr<std::string> ReadLine(std::chrono::milliseconds timeout);
  void Signal(int sig);
  // Reads both pipes to EOF and reaps the child: its exit code, or 128 + signal.
  // DeadlineExceeded (the child is then killed) when it does not finish in time.
  absl::StatusOr<int> Finish(std::chrono::milliseconds timeout);

  const std::string& out() const { return out_; }  // stdout not yet returned by ReadLine
  const std::string& err() const { return err_; }

 private:
  CliProcess(pid_t pid, int out_fd, int err_fd) : pid_(pid), out_fd_(out_fd), err_fd_(err_fd) {}
  // Waits up to the deadline for output on either pipe and appends it; false when both are
  // at EOF.
  absl::StatusOr<bool> Pump(std::chrono::steady_clock::time_point deadline);

  pid_t pid_;
  int out_fd_;
  int err_fd_;
  std::string out_;
  std::string err_;
  bool reaped_ = false;
};

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `tunefarm args...` to completion (30 s at most; a timeout fails the test).
CliResult RunTunefarm(const std::vector<std::string>& args,
                      const std::vector<std::string>& extra_env = {},
                      const std::string& stdin_path = "");


// A scratch directory (tests/common/test_temp_dir.h).
using TempDir = ::tunefarm::testing::TempDir;

}  // namespace tunefarm::cli::testing
