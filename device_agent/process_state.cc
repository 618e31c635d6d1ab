#include "device_agent/process_state.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace tunefarm::agent {
namespace {

bool HasChildren() {
  siginfo_t info{};
  // ECHILD: none at all; 0: some, exited or not (WNOWAIT leaves them as they are).
  return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

// The value after "Name:" in /proc/self/status's `text`, without surrounding blanks.
std::string StatusField(const std::string& text, const char* name) {
  const std::string key = std::string("\n") + name + ":";
  size_t at = text.find(key);
  if (at == std::string::npos) return "";
  at = text.find_first_not_of(" \t", at + key.size());
  const size_t end = text.find('\n', at);
  return at == std::string::npos ? "" : text.substr(at, end - at);
}

uint64_t SignalSet(const std::string& hex) {
  uint64_t set = std::strtoull(hex.c_str(), nullptr, 16);
  for (int signal = 32; signal < SIGRTMIN && signal <= 64; ++signal) {
    set &= ~(uint64_t{1} << (signal - 1));
  }
  return set;
}

std::string ReadStatus() {
  std::string text = "\n";  // so that the first field is found like the others
  const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR);) {
    if (n > 0) text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

}  // namespace

ProcessState SnapshotProcessState() {
  const std::string status = ReadStatus();
  ProcessState state;
  state.threads = std::atoi(StatusField(status, "Threads").c_str());
  state.has_children = HasChildren();
  state.caught = SignalSet(StatusField(status, "SigCgt"));
  state.ignored = SignalSet(StatusField(status, "SigIgn"));
  state.blocked = SignalSet(StatusField(status, "SigBlk"));
  state.address_space_bytes = std::atoll(StatusField(status, "VmSize").c_str()) * 1024;  // kB
  for (int resource : {RLIMIT_AS, RLIMIT_CORE, RLIMIT_NOFILE, RLIMIT_STACK}) {
    rlimit limit{};
    getrlimit(resource, &limit);
    state.limits.push_back(limit.rlim_cur);
    state.limits.push_back(limit.rlim_max);
  }
  char cwd[4096];
  state.cwd = getcwd(cwd, sizeof cwd) != nullptr ? cwd : "";
  return state;
}

std::string WhatChanged(const ProcessState& before, const ProcessState& after) {
  if (after.threads != before.threads) {
    return "the candidate left " + std::to_string(after.threads) + " threads (" +
           std::to_string(before.threads) + " before it)";
  }
  if (after.has_children && !before.has_children) {
    return "the candidate left a child process";
  }
  if (after.caught != before.caught || after.ignored != before.ignored) {
    return "the candidate changed a signal's handling";
  }
  if (after.blocked != before.blocked) return "the candidate changed the signal mask";
  if (after.limits != before.limits) return "the candidate changed a resource limit";
  if (after.cwd != before.cwd) return "the candidate changed the working directory";
  if (after.address_space_bytes - before.address_space_bytes > kMaxAddressSpaceGrowth) {
    return "the candidate left " +
           std::to_string((after.address_space_bytes - before.address_space_bytes) >> 20) +
           " MiB of address space mapped";
  }
  return "";
}

}  // namespace tunefarm::agent
