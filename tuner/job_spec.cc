#include "tuner/job_spec.h"

#include <unistd.h>

#include <google/protobuf/util/json_util.h>

#include "common/strings.h"

namespace tunefarm::tuner {

std::string SpecToJson(const v1::JobSpec& spec) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  // Printing a message we built cannot fail; an empty object keeps the column valid JSON.
  if (!google::protobuf::util::MessageToJsonString(spec, &json, options).ok()) return "{}";
  return json;
}

absl::StatusOr<v1::JobSpec> SpecFromJson(const std::string& json) {
  v1::JobSpec spec;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // a spec written by a newer tuner still resumes
  auto status = google::protobuf::util::JsonStringToMessage(json, &spec, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(StrCat("job spec: ", std::string(status.message())));
  }
  return spec;
}

absl::Status ValidateSpec(const v1::JobSpec& spec) {
  switch (spec.source_case()) {
    case v1::JobSpec::kModelPath:
      if (spec.model_path().empty()) return absl::InvalidArgumentError("spec.model_path is empty");
      if (access(spec.model_path().c_str(), R_OK) != 0) {
        return absl::InvalidArgumentError(
            StrCat("spec.model_path ", spec.model_path(), ": no readable file on the tuner's host"));
      }
      for (const std::string& bind : spec.bind()) {
        const size_t eq = bind.find('=');
        if (eq == std::string::npos || eq == 0) {
          return absl::InvalidArgumentError(StrCat("spec.bind '", bind, "': expected NAME=FILE"));
        }
        if (access(bind.c_str() + eq + 1, R_OK) != 0) {
          return absl::InvalidArgumentError(
              StrCat("spec.bind ", bind.substr(0, eq), ": ", bind.substr(eq + 1), ": no readable file on the tuner's host"));
        }
      }
      break;
    case v1::JobSpec::kTasks:
      if (spec.tasks().tasks().empty()) return absl::InvalidArgumentError("spec.tasks is empty");
      for (int i = 0; i < spec.tasks().tasks_size(); ++i) {
        const std::string& key = spec.tasks().tasks(i).workload_key();
        if (key.empty()) return absl::InvalidArgumentError(StrCat("spec.tasks[", i, "] has no workload_key"));
        for (int j = 0; j < i; ++j)
          if (spec.tasks().tasks(j).workload_key() == key)
            return absl::InvalidArgumentError(StrCat("spec.tasks[", i, "] repeats the workload_key of spec.tasks[", j, "]"));
      }
      break;
    default:
      return absl::InvalidArgumentError("spec needs tasks or a model_path");
  }
  if (spec.device_key().empty()) return absl::InvalidArgumentError("spec.device_key is empty");
  if (spec.trial_budget() < 1) return absl::InvalidArgumentError("spec.trial_budget must be at least 1");
  if (spec.threads() < 0) return absl::InvalidArgumentError("spec.threads must not be negative");
  if (spec.priority() < -kMaxJobPriority || spec.priority() > kMaxJobPriority)
    return absl::InvalidArgumentError(StrCat("spec.priority must be within -", kMaxJobPriority, "..", kMaxJobPriority));
  const v1::SearchSettings& search = spec.search();
  if (!search.policy().empty() && search.policy() != "evolution" && search.policy() != "random")
    return absl::InvalidArgumentError(
        StrCat("spec.search.policy '", search.policy(), "' is unknown: use \"evolution\" or \"random\""));
  if (search.population() < 0 || search.generations() < 0 || search.measure_per_round() < 0 ||
      search.early_stop_rounds() < 0)
    return absl::InvalidArgumentError("spec.search settings must not be negative");
  return absl::OkStatus();
}

SearchConfig SearchConfigOf(const v1::JobSpec& spec) {
  SearchConfig c;
  const v1::SearchSettings& s = spec.search();
  if (!s.policy().empty()) c.policy = s.policy();
  if (s.population() > 0) c.population = s.population();
  if (s.generations() > 0) c.generations = s.generations();
  if (s.measure_per_round() > 0) c.measure_per_round = s.measure_per_round();
  if (s.early_stop_rounds() > 0) c.early_stop_rounds = s.early_stop_rounds();
  return c;
}

v1::JobState ToWire(db::JobState state) {
  switch (state) {
    case db::JobState::kQueued: return v1::JOB_STATE_QUEUED;
    case db::JobState::kRunning: return v1::JOB_STATE_RUNNING;
    case db::JobState::kDone: return v1::JOB_STATE_SUCCEEDED;
    case db::JobState::kFailed: return v1::JOB_STATE_FAILED;
    case db::JobState::kCancelled: return v1::JOB_STATE_CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

bool IsFinal(v1::JobState state) {
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

}  // namespace tunefarm::tuner
