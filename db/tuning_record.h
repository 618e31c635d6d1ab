// A tuning record: one measured schedule candidate (DESIGN.md "Tuning record").
//
// The record is plain data shared by the tuner (which writes it), the database
// (which stores it) and the compiler (which reads the best one back). JSON is
// its exchange form for export/import; the field names below are that format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace tunefarm::db {

// Why a measurement produced no usable timing. The numeric values are stored in
// the database (records.error_kind): append new kinds, never renumber.
enum class ErrorKind : int {
  kNone = 0,
  kBuild = 1,         // codegen or link failed
  kLoad = 2,          // the agent could not dlopen the kernel
  kCrash = 3,         // the measure helper died; error_code is the signal
  kTimeout = 4,       // killed after the time limit
  kWrongResult = 5,   // ran, but outputs differ from the reference
  kRuntimeError = 6,  // the kernel returned non-zero; error_code is its value
  kOutOfMemory = 7,   // buffers, workspace or the kernel exceeded the agent's memory limit
};

// "none", "build", "load", "crash", "timeout", "wrong_result", "runtime_error",
// "out_of_memory".
std::string_view ErrorKindName(ErrorKind kind);
absl::StatusOr<ErrorKind> ParseErrorKind(std::string_view name);

struct TuningRecord {
  std::string record_id;     // UUID v4 text; makes import idempotent
  std::string workload_key;  // format version + SHA-256 of the DAG text
  std::string target;        // canonical target string, opaque here
  int threads = 1;
  std::string device_key;
  std::string schedule_json;
  std::string schedule_hash;
  std::vector<double> costs_sec;  // one per repeat
  ErrorKind error_kind = ErrorKind::kNone;
  int error_code = 0;  // signal for kCrash, return/exit code otherwise
  std::string error_message;
  // NaN when not checked (stored as NULL, exported as null).
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  std::string job_id;  // empty: not part of a job
  int64_t created_unix_ms = 0;
  int64_t measured_unix_ms = 0;

  // The candidate's cost: the median of costs_sec (the mean of the middle two for an even
  // count), so one repeat disturbed by another process does not move it; +infinity when there
  // are none. It is what the database ranks by (the `cost` column).
  double Cost() const;
  // (slowest - fastest) / Cost() over the repeats: how far they disagreed; 0 with one repeat
  // or none.
  double Spread() const;
  // A record best() may return: no error and at least one timing.
  bool IsValid() const { return error_kind == ErrorKind::kNone && !costs_sec.empty(); }

  friend bool operator==(const TuningRecord&, const TuningRecord&);
};

// The conflict rule for two measurements of the same schedule: valid beats
// invalid, then the lower cost (median) wins. Ties keep the existing one, which is
// what makes re-importing a file a no-op.
bool IsBetterMeasurement(bool new_valid, double new_cost, bool old_valid, double old_cost);

// Checks what the database relies on (ids present, threads >= 1, costs finite
// and non-negative, a valid record has costs). The message names the field.
absl::Status ValidateRecord(const TuningRecord& record);

nlohmann::json RecordToJson(const TuningRecord& record);
// Every field is required except error_message, job_id and the error figures.
absl::StatusOr<TuningRecord> RecordFromJson(const nlohmann::json& json);

}  // namespace tunefarm::db
