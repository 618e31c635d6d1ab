// A tuning job as the database keeps it, so a restarted tuner can resume it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tunefarm::db {

// Stored as text (jobs.state). kDone, kFailed and kCancelled are final.
enum class JobState { kQueued, kRunning, kDone, kFailed, kCancelled };

std::string_view JobStateName(JobState state);  // "queued", "running", ...
absl::StatusOr<JobState> ParseJobState(std::string_view name);
bool IsFinal(JobState state);

struct Job {
  std::string job_id;     // UUID v4 text
  std::string spec_json;  // what was submitted (tasks, target, budget...), opaque here
  JobState state = JobState::kQueued;
  int64_t trials_done = 0;
  int64_t trials_total = 0;
  std::string error_message;  // why it failed, when it did
  int64_t created_unix_ms = 0;
  int64_t updated_unix_ms = 0;
  // The tuner running the job, and until when its claim holds; "" and 0 when unclaimed.
  std::string owner;
  int64_t lease_until_unix_ms = 0;
};

// A running job that no live tuner holds (its tuner was stopped or died): "interrupted" in
// listings, and free for any tuner to resume.
bool IsInterrupted(const Job& job, int64_t now_unix_ms);
// JobStateName, except "interrupted" for an interrupted job.
std::string_view DisplayState(const Job& job, int64_t now_unix_ms);

}  // namespace tunefarm::db
