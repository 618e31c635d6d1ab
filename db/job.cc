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

}  // namespace tunefarm::db
