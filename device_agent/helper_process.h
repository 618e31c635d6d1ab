// Starts the measure helper and waits for it, as DESIGN.md "Measurement" asks: posix_spawn
// (never fork in a threaded server), an explicit environment without the token, no file
// descriptor but stdio and the result pipe, default signal dispositions and an empty signal
// mask (the agent blocks SIGTERM for its sigwait thread), and a process group of its own that
// is killed as a whole at the deadline or on cancellation. Resource limits are applied by the
// helper itself (posix_spawn cannot set them), from its command line.
#ifndef TUNEFARM_DEVICE_AGENT_HELPER_PROCESS_H_
#define TUNEFARM_DEVICE_AGENT_HELPER_PROCESS_H_

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tunefarm::agent {

// The descriptor number on which the helper finds the write end of the result pipe.
inline constexpr int kResultFd = 3;

// At most this much of the helper's output is kept (a kernel could write to the pipe).
inline constexpr size_t kMaxHelperOutputBytes = size_t{1} << 20;

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

// Runs the helper to completion (or kills it). An error only when it could not be started.
absl::StatusOr<HelperRun> RunHelper(const HelperLaunch& launch);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_HELPER_PROCESS_H_
