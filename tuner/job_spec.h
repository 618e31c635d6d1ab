// A job's spec as the database keeps it (jobs.spec_json: the JobSpec in proto3 JSON), what a
// spec must hold to be accepted, and the database's job states on the wire.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "db/job.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::tuner {

// A job's search settings with the defaults filled in (proto SearchSettings: 0 = default).
struct SearchConfig {
  std::string policy = "evolution";  // or "random"
  int population = 2048;
  int generations = 4;
  int measure_per_round = 64;
  int early_stop_rounds = 8;
};
SearchConfig SearchConfigOf(const v1::JobSpec& spec);

std::string SpecToJson(const v1::JobSpec& spec);
absl::StatusOr<v1::JobSpec> SpecFromJson(const std::string& json);

// A job's priority lies within -kMaxJobPriority..kMaxJobPriority (so that the tracker's ranks
// derived from it cannot overflow).
inline constexpr int kMaxJobPriority = 1000;
// The spec's priority within that range (a spec stored by another client may lie outside).
inline int JobPriority(const v1::JobSpec& spec) {
  return spec.priority() < -kMaxJobPriority ? -kMaxJobPriority
                                            : spec.priority() > kMaxJobPriority ? kMaxJobPriority : spec.priority();
}

// InvalidArgument naming the field: no source, a task without a workload key, no device key,
// a workload listed twice, a trial budget below 1, negative threads, a priority out of range, a
// model path that is not a readable file here.
absl::Status ValidateSpec(const v1::JobSpec& spec);

v1::JobState ToWire(db::JobState state);
bool IsFinal(v1::JobState state);

}  // namespace tunefarm::tuner
