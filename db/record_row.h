// Internal to db/: how a TuningRecord maps onto a records row, shared by the
// writes, the queries and the export.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "db/sqlite_handle.h"
#include "db/tuning_record.h"

namespace tunefarm::db::internal {

// Selects the 16 columns ReadRecordRow expects, from records r joined to its
// workload w and target t; callers append WHERE / ORDER BY.
inline constexpr std::string_view kSelectRecord =
    "SELECT r.record_id, w.workload_key, t.target, r.threads, r.device_key, r.schedule_json,"
    " r.schedule_hash, r.costs_json, r.error_kind, r.error_code, r.error_message,"
    " r.max_abs_error, r.max_rel_error, r.job_id, r.created_unix_ms, r.measured_unix_ms"
    " FROM records r"
    " JOIN workloads w ON w.workload_id = r.workload_id"
    " JOIN targets t ON t.target_id = r.target_id";

// The ranking column of records r: `r.cost` (the median of the repeats) from schema 3;
// before it, in an older file opened read-only, `r.mean_cost` (the mean it stored).
std::string_view CostColumn(int schema_version);

// The best()/top_k() query. "error_kind = 0" is spelled out (not bound) so the
// planner can match the partial index records_best.
const std::string& BestQuery(int schema_version);

// Binds ?1..?17 in the column order of the records table, id left out:
// record_id, workload_id, target_id, threads, ..., measured_unix_ms.
inline constexpr int kRecordParamCount = 17;
void BindRecordParams(Statement& statement, const TuningRecord& record, int64_t workload_id,
                      int64_t target_id);

// DataLoss (naming the file) when the stored costs are not a JSON number list.
absl::StatusOr<TuningRecord> ReadRecordRow(const Statement& statement,
                                           const Connection& connection);

}  // namespace tunefarm::db::internal
