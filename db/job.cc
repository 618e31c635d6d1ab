#include "db/job.h"

#include <array>
#include <utility>

#include "db/text.h"

namespace tunefarm::db {
namespace {

constexpr std::array<std::pair<JobState, std::string_view>, 5> kJobStateNames = {{
    {JobState::kQueued, "queued"},
    {JobState::kRunning, "running"},
    {JobState::kDone, "done"},
    {JobState::kFailed, "failed"},
    {JobState::kCancelled, "cancelled"},
}};

}  // namespace

std::string_view JobStateName(JobState state) {
  for (const auto& [s, name] : kJobStateNames) {
    if (s == state) return name;
  }
  return "unknown";
}

absl::StatusOr<JobState> ParseJobState(std::string_view name) {
  for (const auto& [state, n] : kJobStateNames) {
    if (n == name) return state;
  }
  return absl::InvalidArgumentError(internal::Cat("unknown job state '", name, "'"));
}

bool IsFinal(JobState state) {
  return state == JobState::kDone || state == JobState::kFailed || state == JobState::kCancelled;
}

bool IsInterrupted(const Job& job, int64_t now_unix_ms) {
  return job.state == JobState::kRunning && (job.owner.empty() || job.lease_until_unix_ms < now_unix_ms);
}

std::string_view DisplayState(const Job& job, int64_t now_unix_ms) {
  return IsInterrupted(job, now_unix_ms) ? "interrupted" : JobStateName(job.state);
}

}  // namespace tunefarm::db
