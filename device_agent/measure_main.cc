// tunefarm-measure: the helper process in which the agent runs shipped kernels (DESIGN.md
// "Measurement", docs/agent.md). It applies its resource limits before anything else, then
// measures one candidate and reports on the result pipe. It links the deploy runtime and
// nothing heavy, so it starts in about a millisecond.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include "device_agent/measure_protocol.h"
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
std::string SetLimit(int resource, const char* name, rlim_t value) {
  const rlimit limit{value, value};
  if (setrlimit(resource, &limit) == 0) return "";
  return std::string("setrlimit(") + name + ", " + std::to_string(value) + "): " +
         std::strerror(errno);
}

std::string ApplyLimits(const tunefarm::agent::MeasureSpec& spec) {
  std::string error = SetLimit(RLIMIT_CORE, "RLIMIT_CORE", 0);
  if (error.empty() && spec.memory_limit_bytes > 0) {
    error = SetLimit(RLIMIT_AS, "RLIMIT_AS", static_cast<rlim_t>(spec.memory_limit_bytes));
  }
  if (error.empty() && spec.cpu_limit_sec > 0) {
    error = SetLimit(RLIMIT_CPU, "RLIMIT_CPU", static_cast<rlim_t>(spec.cpu_limit_sec));
  }
  return error;
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

  tunefarm::agent::MeasureSession session(
      *spec, [fd](const char* stage) { WriteAll(fd, tunefarm::agent::StageLine(stage)); });
  const MeasureOutcome outcome = session.Run();
  WriteAll(fd, tunefarm::agent::OutcomeLine(outcome));
  // _exit: the outcome is out; library destructors (dlclose) have nothing left to say.
  _exit(0);
}
