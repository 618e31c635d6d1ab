// A process started by a test, with its stdout on a pipe. The destructor SIGKILLs and reaps it
// if it still runs, so a failing test never leaves servers behind.
#ifndef TUNEFARM_TESTS_FARM_CHILD_PROCESS_H_
#define TUNEFARM_TESTS_FARM_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/common/test_temp_dir.h"  // TempDir

namespace tunefarm::testing {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with this process's environment plus `extra_env` ("NAME=value",
  // overriding). stdout comes back through a pipe; stderr is shared with the test.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Spawn(
      const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // The next stdout line, without its newline. DeadlineExceeded on timeout; OutOfRange at EOF.
  absl::StatusOr<std::string> ReadLine(std::chrono::milliseconds timeout);
  // Everything until EOF.
  absl::StatusOr<std::string> ReadToEnd(std::chrono::milliseconds timeout);

  void Signal(int sig);
  // Waits for the exit: the exit code, or 128 + signal. DeadlineExceeded if still running.
  absl::StatusOr<int> Wait(std::chrono::milliseconds timeout);

 private:
  ChildProcess(pid_t pid, int stdout_fd) : pid_(pid), stdout_fd_(stdout_fd) {}
  // Reads what is available into buffer_, waiting up to `timeout`; false on EOF.
  absl::StatusOr<bool> Fill(std::chrono::steady_clock::time_point deadline);

  pid_t pid_;
  int stdout_fd_;
  std::string buffer_;
  bool eof_ = false;
  bool reaped_ = false;
  int exit_code_ = 0;
};

}  // namespace tunefarm::testing

#endif  // TUNEFARM_TESTS_FARM_CHILD_PROCESS_H_
