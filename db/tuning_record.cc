#include "db/tuning_record.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "db/record_id.h"
#include "db/text.h"

namespace tunefarm::db {
namespace {

using Json = nlohmann::json;

constexpr std::array<std::pair<ErrorKind, std::string_view>, 8> kErrorKindNames = {{
    {ErrorKind::kNone, "none"},
    {ErrorKind::kBuild, "build"},
    {ErrorKind::kLoad, "load"},
    {ErrorKind::kCrash, "crash"},
    {ErrorKind::kTimeout, "timeout"},
    {ErrorKind::kWrongResult, "wrong_result"},
    {ErrorKind::kRuntimeError, "runtime_error"},
    {ErrorKind::kOutOfMemory, "out_of_memory"},
}};

// NaN compares unequal to itself, but two "not checked" figures are the same.
bool SameFigure(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// JSON has no NaN: an unchecked error figure travels as null.
Json FigureToJson(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

// Small typed readers so that a bad line says which field is wrong.
class FieldReader {
 public:
  explicit FieldReader(const Json& json) : json_(json) {}

  absl::Status status() const { return status_; }

  std::string String(const char* name, bool required = true) {
    const Json* value = Find(name, required);
    if (value == nullptr) return "";
    if (!value->is_string()) {
      Fail(name, "a string");
      return "";
    }
    return value->get<std::string>();
  }

  int64_t Integer(const char* name, bool required = true) {
    const Json* value = Find(name, required);
    if (value == nullptr) return 0;
    if (!value->is_number_integer()) {
      Fail(name, "an integer");
      return 0;
    }
    return value->get<int64_t>();
  }

  int Int32(const char* name) {
    int64_t value = Integer(name);
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
      Fail(name, "a 32-bit integer");
      return 0;
    }
    return static_cast<int>(value);
  }

  // null (or absent when optional) reads as NaN.
  double Figure(const char* name) {
    const Json* value = Find(name, /*required=*/false);
    if (value == nullptr || value->is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!value->is_number()) {
      Fail(name, "a number or null");
      return 0.0;
    }
    return value->get<double>();
  }

  std::vector<double> Numbers(const char* name) {
    const Json* value = Find(name, /*required=*/true);
    std::vector<double> numbers;
    if (value == nullptr) return numbers;
    bool all_numbers = value->is_array();
    if (all_numbers) {
      for (const Json& item : *value) all_numbers = all_numbers && item.is_number();
    }
    if (!all_numbers) {
      Fail(name, "an array of numbers");
      return numbers;
    }
    for (const Json& item : *value) numbers.push_back(item.get<double>());
    return numbers;
  }

 private:
  const Json* Find(const char* name, bool required) {
    if (!status_.ok()) return nullptr;
    auto it = json_.find(name);
    if (it == json_.end()) {
      if (required) {
        status_ = absl::InvalidArgumentError(internal::Cat("missing field '", name, "'"));
      }
      return nullptr;
    }
    return &*it;
  }

  void Fail(const char* name, const char* expected) {
    status_ = absl::InvalidArgumentError(internal::Cat("field '", name, "' must be ", expected));
  }

  const Json& json_;
  absl::Status status_;
};

}  // namespace

std::string_view ErrorKindName(ErrorKind kind) {
  for (const auto& [k, name] : kErrorKindNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

absl::StatusOr<ErrorKind> ParseErrorKind(std::string_view name) {
  for (const auto& [kind, n] : kErrorKindNames) {
    if (n == name) return kind;
  }
  return absl::InvalidArgumentError(internal::Cat("unknown error kind '", name, "'"));
}

double TuningRecord::Cost() const {
  if (costs_sec.empty()) return std::numeric_limits<double>::infinity();
  std::vector<double> sorted = costs_sec;
  std::sort(sorted.begin(), sorted.end());
  const size_t middle = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

double TuningRecord::Spread() const {
  if (costs_sec.size() < 2) return 0.0;
  const auto [fastest, slowest] = std::minmax_element(costs_sec.begin(), costs_sec.end());
  const double cost = Cost();
  return cost > 0 ? (*slowest - *fastest) / cost : 0.0;
}

bool operator==(const TuningRecord& a, const TuningRecord& b) {
  return a.record_id == b.record_id && a.workload_key == b.workload_key && a.target == b.target &&
         a.threads == b.threads && a.device_key == b.device_key &&
         a.schedule_json == b.schedule_json && a.schedule_hash == b.schedule_hash &&
         a.costs_sec == b.costs_sec && a.error_kind == b.error_kind &&
         a.error_code == b.error_code && a.error_message == b.error_message &&
         SameFigure(a.max_abs_error, b.max_abs_error) &&
         SameFigure(a.max_rel_error, b.max_rel_error) && a.job_id == b.job_id &&
         a.created_unix_ms == b.created_unix_ms && a.measured_unix_ms == b.measured_unix_ms;
}

bool IsBetterMeasurement(bool new_valid, double new_cost, bool old_valid, double old_cost) {
  if (new_valid != old_valid) return new_valid;
  return new_valid && new_cost < old_cost;
}

absl::Status ValidateRecord(const TuningRecord& r) {
  auto bad = [](std::string_view what) {
    return absl::InvalidArgumentError(internal::Cat("invalid tuning record: ", what));
  };
  if (!IsUuidText(r.record_id)) {
    return bad(internal::Cat("record_id is not a UUID: '", r.record_id, "'"));
  }
  if (r.workload_key.empty()) return bad("empty workload_key");
  if (r.target.empty()) return bad("empty target");
  if (r.schedule_hash.empty()) return bad("empty schedule_hash");
  if (r.threads < 1) return bad(internal::Cat("threads must be >= 1, got ", r.threads));
  for (double cost : r.costs_sec) {
    if (!std::isfinite(cost) || cost < 0) return bad("costs_sec must be finite and >= 0");
  }
  if (r.error_kind == ErrorKind::kNone && r.costs_sec.empty()) {
    return bad("a record without error needs at least one cost");
  }
  if (ErrorKindName(r.error_kind) == "unknown") return bad("unknown error_kind");
  return absl::OkStatus();
}

nlohmann::json RecordToJson(const TuningRecord& r) {
  return Json{
      {"record_id", r.record_id},
      {"workload_key", r.workload_key},
      {"target", r.target},
      {"threads", r.threads},
      {"device_key", r.device_key},
      {"schedule_json", r.schedule_json},
      {"schedule_hash", r.schedule_hash},
      {"costs_sec", r.costs_sec},
      {"error_kind", ErrorKindName(r.error_kind)},
      {"error_code", r.error_code},
      {"error_message", r.error_message},
      {"max_abs_error", FigureToJson(r.max_abs_error)},
      {"max_rel_error", FigureToJson(r.max_rel_error)},
      {"job_id", r.job_id},
      {"created_unix_ms", r.created_unix_ms},
      {"measured_unix_ms", r.measured_unix_ms},
  };
}

absl::StatusOr<TuningRecord> RecordFromJson(const nlohmann::json& json) {
  if (!json.is_object()) return absl::InvalidArgumentError("a tuning record must be a JSON object");
  FieldReader in(json);
  TuningRecord r;
  r.record_id = in.String("record_id");
  r.workload_key = in.String("workload_key");
  r.target = in.String("target");
  r.threads = in.Int32("threads");
  r.device_key = in.String("device_key");
  r.schedule_json = in.String("schedule_json");
  r.schedule_hash = in.String("schedule_hash");
  r.costs_sec = in.Numbers("costs_sec");
  std::string kind = in.String("error_kind");
  r.error_code = in.Int32("error_code");
  r.error_message = in.String("error_message", /*required=*/false);
  r.max_abs_error = in.Figure("max_abs_error");
  r.max_rel_error = in.Figure("max_rel_error");
  r.job_id = in.String("job_id", /*required=*/false);
  r.created_unix_ms = in.Integer("created_unix_ms");
  r.measured_unix_ms = in.Integer("measured_unix_ms");
  if (!in.status().ok()) return in.status();
  absl::StatusOr<ErrorKind> error_kind = ParseErrorKind(kind);
  if (!error_kind.ok()) return error_kind.status();
  r.error_kind = *error_kind;
  return r;
}

}  // namespace tunefarm::db
