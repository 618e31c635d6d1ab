// What a candidate could leave behind in the helper process that would change how the next
// candidate of the batch runs: threads or child processes still running, signal handling or
// resource limits changed, another working directory, leaked address space. The helper takes
// a snapshot before its first candidate and compares after each one; a difference retires
// the helper (the agent starts a fresh one for the rest of the batch).
#ifndef TUNEFARM_DEVICE_AGENT_PROCESS_STATE_H_
#define TUNEFARM_DEVICE_AGENT_PROCESS_STATE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tunefarm::agent {

// Address space a candidate may leave mapped (malloc's arenas for new threads, the loader's
// caches) before the helper is retired: a leak beyond it would eat into the next candidates'
// memory limit.
inline constexpr int64_t kMaxAddressSpaceGrowth = int64_t{256} << 20;

// Read from /proc/self/status in one go: a few hundred syscalls fewer per candidate than
// asking about each signal, which shows in a batch of small kernels.
struct ProcessState {
  int threads = 0;
  bool has_children = false;
  // Signal sets, one bit per signal (bit n-1 for signal n), without the C library's own
  // signals (32 up to SIGRTMIN), whose handlers glibc installs with the first thread.
  uint64_t caught = 0;   // SigCgt: the signals with a handler
  uint64_t ignored = 0;  // SigIgn
  uint64_t blocked = 0;  // SigBlk: the main thread's signal mask
  std::vector<uint64_t> limits;     // soft and hard RLIMIT_AS, _CORE, _NOFILE, _STACK
  std::string cwd;
  int64_t address_space_bytes = 0;
};

ProcessState SnapshotProcessState();

// Empty when `after` may run the next candidate as `before` would, else what changed
// ("a thread is still running").
std::string WhatChanged(const ProcessState& before, const ProcessState& after);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_PROCESS_STATE_H_
