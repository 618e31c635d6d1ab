// tunefarm-measure: the helper process in which the agent runs shipped kernels (DESIGN.md
// "Measurement", docs/agent.md). It applies its resource limits before anything else, then
// measures the candidates that arrive on stdin one at a time, reporting each on the result
// pipe, until stdin ends. It links the deploy runtime and nothing heavy, so it starts fast.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <string>

#include "device_agent/measure_protocol.h"
#include "device_agent/process_state.h"
#include "device_agent/gpu_measure_session.h"
#include "device_agent/measure_session.h"

namespace {

using tunefarm::agent::MeasureOutcome;
using tunefarm::agent::OutcomeKind;

void WriteAll(int fd, const std::string& text) {
  const char* data = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the agent is gone: nobody to tell
    data += n;
    left -= static_cast<size_t>(n);
  }
}

// Empty on success, else what failed.
std::string SetLimit(int resource, const char* name, rlim_t soft, rlim_t hard) {
  const rlimit limit{soft, hard};
  if (setrlimit(resource, &limit) == 0) return "";
  return std::string("setrlimit(") + name + ", " + std::to_string(soft) + "): " +
         std::strerror(errno);
}

std::string ApplyLimits(const tunefarm::agent::MeasureSpec& spec) {
  std::string error = SetLimit(RLIMIT_CORE, "RLIMIT_CORE", 0, 0);
  // Not on a GPU: the CUDA driver reserves address space far beyond any memory it uses, and
  // cuInit fails under a limit on it. GPU memory is bounded by the device instead.
  if (error.empty() && spec.memory_limit_bytes > 0 && spec.device.empty()) {
    const auto bytes = static_cast<rlim_t>(spec.memory_limit_bytes);
    error = SetLimit(RLIMIT_AS, "RLIMIT_AS", bytes, bytes);
  }
  // The hard limit covers the batch; the soft one is moved before each candidate.
  if (error.empty() && spec.batch_cpu_limit_sec > 0) {
    const auto seconds = static_cast<rlim_t>(spec.batch_cpu_limit_sec);
    error = SetLimit(RLIMIT_CPU, "RLIMIT_CPU", seconds, seconds);
  }
  return error;
}

// SIGXCPU once this candidate has used cpu_limit_sec of CPU time (never beyond the hard limit).
void StartCpuBudget(const tunefarm::agent::MeasureSpec& spec) {
  if (spec.cpu_limit_sec <= 0) return;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const rlim_t used = static_cast<rlim_t>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1;
  rlimit limit{};
  getrlimit(RLIMIT_CPU, &limit);
  limit.rlim_cur = std::min(limit.rlim_max, used + static_cast<rlim_t>(spec.cpu_limit_sec));
  setrlimit(RLIMIT_CPU, &limit);
}

// One line from `fd` without its '\n'; false at end of file.
bool ReadLine(int fd, std::string* buffer, std::string* line) {
  while (true) {
    if (const size_t end = buffer->find('\n'); end != std::string::npos) {
      *line = buffer->substr(0, end);
      buffer->erase(0, end + 1);
      return true;
    }
    char chunk[4096];
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer->append(chunk, static_cast<size_t>(n));
  }
}

[[noreturn]] void Refuse(int fd, const std::string& message) {
  MeasureOutcome outcome;
  outcome.kind = OutcomeKind::kBadRequest;
  outcome.message = "tunefarm-measure: " + message;
  WriteAll(fd, tunefarm::agent::OutcomeLine(outcome));
  _exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  // Dies with the agent's measuring thread, so a kernel never outlives its agent.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);

  tunefarm::deploy::Result<tunefarm::agent::MeasureSpec> spec =
      tunefarm::agent::ParseMeasureArgs(argc, argv);
  if (!spec.ok()) Refuse(3, spec.status().message());
  const int fd = spec->result_fd;
  // Limits first: no kernel byte is read before they hold.
  if (const std::string error = ApplyLimits(*spec); !error.empty()) Refuse(fd, error);

  auto report_stage = [fd](const char* stage) { WriteAll(fd, tunefarm::agent::StageLine(stage)); };
  std::unique_ptr<tunefarm::agent::CandidateMeasurer> session;
  if (spec->device.empty()) {
    session = std::make_unique<tunefarm::agent::MeasureSession>(*spec, report_stage);
  } else {
    session = std::make_unique<tunefarm::agent::GpuMeasureSession>(*spec, report_stage);
  }
  const tunefarm::agent::ProcessState before = tunefarm::agent::SnapshotProcessState();
  std::string input, line;
  while (ReadLine(STDIN_FILENO, &input, &line)) {
    tunefarm::deploy::Result<tunefarm::agent::CandidateJob> job =
        tunefarm::agent::ParseJobLine(line);
    if (!job.ok()) Refuse(fd, job.status().message());
    StartCpuBudget(*spec);
    const MeasureOutcome outcome = session->Measure(*job);
    // Reported before the library is unloaded: a destructor that crashes cannot take it away.
    // The leading newline ends whatever a kernel left unterminated on the pipe, so that the
    // outcome stays a line of its own and the agent does not wait for it until the deadline.
    WriteAll(fd, "\n" + tunefarm::agent::OutcomeLine(outcome));
    session->Unload();
    std::string retire = session->RetireReason();
    if (retire.empty() && outcome.kind == OutcomeKind::kOutOfMemory) retire = "the candidate ran out of memory";
    // The CUDA driver starts threads and maps memory of its own: only a CPU helper is
    // expected to stay as it began.
    if (retire.empty() && spec->device.empty()) {
      retire = tunefarm::agent::WhatChanged(before, tunefarm::agent::SnapshotProcessState());
    }
    if (!retire.empty()) {
      WriteAll(fd, tunefarm::agent::RetireLine(retire));
      _exit(0);
    }
  }
  // _exit: library destructors have nothing left to say.
  _exit(0);
}
