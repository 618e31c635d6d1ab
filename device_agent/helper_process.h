// Starts the measure helper and waits for it, as DESIGN.md "Measurement" asks: posix_spawn
// (never fork in a threaded server), an explicit environment without the token, no file
// descriptor but stdio and the result pipe, default signal dispositions and an empty signal
// mask (the agent blocks SIGTERM for its sigwait thread), and a process group of its own that
// is killed as a whole at the deadline, on cancellation, or when it is done. Resource limits
// are applied by the helper itself (posix_spawn cannot set them), from its command line.
//
// A HelperProcess lives for a batch of candidates: the agent sends each candidate as a line on
// the helper's stdin (a socket) and reads what the helper reports on fd 3 until the
// candidate's outcome is there. RunHelper is the one-shot form (stdin at end of file).
#ifndef TUNEFARM_DEVICE_AGENT_HELPER_PROCESS_H_
#define TUNEFARM_DEVICE_AGENT_HELPER_PROCESS_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tunefarm::agent {

// The descriptor number on which the helper finds the write end of the result pipe.
inline constexpr int kResultFd = 3;

// At most this much of the helper's unread output is kept (a kernel could write to the pipe).
inline constexpr size_t kMaxHelperOutputBytes = size_t{1} << 20;

class HelperProcess {
 public:
  // Starts `path` with `args` (after argv[0]). FailedPrecondition when it cannot be started.
  static absl::StatusOr<std::unique_ptr<HelperProcess>> Spawn(const std::string& path,
                                                              const std::vector<std::string>& args);
  ~HelperProcess();  // Kill()
  HelperProcess(const HelperProcess&) = delete;
  HelperProcess& operator=(const HelperProcess&) = delete;

  // Writes `text` to the helper's stdin; false when the helper no longer reads it.
  bool Send(std::string_view text);
  // End of file on the helper's stdin.
  void CloseInput();

  enum class Wait { kDone, kEnded, kTimedOut, kCancelled };
  // Reads the result pipe until `done(output())` holds (kDone; null: never), the helper ends,
  // the deadline passes, or `*cancelled` (may be null, polled every few tens of ms) becomes
  // true. The helper is not killed: call Kill().
  Wait WaitFor(std::chrono::steady_clock::time_point deadline,
               const std::atomic<bool>* cancelled,
               const std::function<bool(std::string_view)>& done);

  // What arrived on the result pipe and was not taken yet.
  const std::string& output() const { return output_; }
  // Removes and returns the first `bytes` of output() (all of it by default).
  std::string TakeOutput(size_t bytes = std::string::npos);

  // Kills the helper's process group and reaps the helper; idempotent. The group is killed
  // while the helper is alive or a zombie, so its id cannot have been reused.
  void Kill();

  int64_t started_unix_us() const { return started_unix_us_; }
  // Valid after Kill().
  bool exited() const { return exited_; }
  int exit_code() const { return exit_code_; }
  int signal() const { return signal_; }

 private:
  HelperProcess() = default;
  bool HasEnded() const;
  void Drain();

  pid_t pid_ = 0;
  int pidfd_ = -1;   // -1 on old kernels: waits poll every millisecond
  int input_ = -1;   // our end of the helper's stdin
  int results_ = -1; // read end of the result pipe; -1 once it reached end of file
  std::string output_;
  int64_t started_unix_us_ = 0;
  bool reaped_ = false;
  bool exited_ = false;
  int exit_code_ = 0;
  int signal_ = 0;
};

struct HelperLaunch {
  std::string path;               // the executable
  std::vector<std::string> args;  // after argv[0]
  std::chrono::milliseconds timeout{10000};
  // Polled while waiting (every few tens of ms); true kills the helper.
  const std::atomic<bool>* cancelled = nullptr;
};

struct HelperRun {
  std::string output;       // what arrived on the result pipe
  bool exited = false;      // exit() / return from main; exit_code is valid
  int exit_code = 0;
  int signal = 0;           // the signal that ended it, when !exited
  bool timed_out = false;   // the agent killed it at the deadline
  bool cancelled = false;   // the agent killed it because `cancelled` became true
  int64_t started_unix_us = 0;   // just before posix_spawn
  int64_t finished_unix_us = 0;  // after it was reaped
};

// The helper's whole environment: PATH and LD_LIBRARY_PATH copied from this process's
// environment when set ("NAME=value" each), nothing else: no token, whatever else is there.
std::vector<std::string> HelperEnvironment();

// Microseconds since the Unix epoch, from a steady clock anchored once per process, so two
// readings never go backwards (an NTP step cannot make measurements appear to overlap).
int64_t UnixMicrosNow();

// Runs the helper with its stdin at end of file to completion (or kills it). An error only
// when it could not be started.
absl::StatusOr<HelperRun> RunHelper(const HelperLaunch& launch);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_HELPER_PROCESS_H_
