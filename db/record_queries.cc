// Reads: best / top-k schedules, records by id or job, per-workload stats.
#include <limits>
#include <string>

#include "db/record_row.h"
#include "db/sqlite_handle.h"
#include "db/text.h"
#include "db/tuning_database.h"

namespace tunefarm::db {
namespace {

using internal::Connection;
using internal::Statement;
using internal::StatementLease;

const std::string kFindRecordQuery =
    internal::Cat(internal::kSelectRecord, " WHERE r.record_id = ?1");
// records_job serves the filter; r.id gives insertion order.
const std::string kJobRecordsQuery =
    internal::Cat(internal::kSelectRecord, " WHERE r.job_id = ?1 ORDER BY r.id");

const std::string kTargetRecordsQuery = internal::Cat(
    internal::kSelectRecord,
    " WHERE r.target_id = (SELECT target_id FROM targets WHERE target = ?1) AND r.threads = ?2"
    " ORDER BY r.id DESC LIMIT ?3");
// The UNIQUE (workload, target, threads, hash) index serves it.
constexpr std::string_view kMeasuredHashesQuery =
    "SELECT r.schedule_hash FROM records r"
    " WHERE r.workload_id = (SELECT workload_id FROM workloads WHERE workload_key = ?1)"
    " AND r.target_id = (SELECT target_id FROM targets WHERE target = ?2) AND r.threads = ?3";

// LEFT JOIN so that a workload registered without records still reports zeros.
std::string StatsSelect(int schema_version) {
  return internal::Cat("SELECT w.workload_key, count(r.id), coalesce(sum(r.error_kind = 0), 0),"
                       " min(CASE WHEN r.error_kind = 0 THEN ", internal::CostColumn(schema_version),
                       " END), count(DISTINCT r.target_id)"
                       " FROM workloads w LEFT JOIN records r ON r.workload_id = w.workload_id");
}

absl::StatusOr<std::vector<TuningRecord>> CollectRecords(Statement& statement,
                                                         const Connection& connection) {
  std::vector<TuningRecord> records;
  while (true) {
    absl::StatusOr<bool> row = statement.Step();
    if (!row.ok()) return row.status();
    if (!*row) return records;
    absl::StatusOr<TuningRecord> record = internal::ReadRecordRow(statement, connection);
    if (!record.ok()) return record.status();
    records.push_back(*std::move(record));
  }
}

WorkloadStats ReadStatsRow(const Statement& s) {
  WorkloadStats stats;
  stats.workload_key = s.Text(0);
  stats.record_count = s.Int64(1);
  stats.valid_count = s.Int64(2);
  if (!s.IsNull(3)) stats.best_cost = s.Double(3);
  stats.target_count = s.Int64(4);
  return stats;
}

}  // namespace

absl::StatusOr<std::vector<TuningRecord>> TuningDatabase::TopK(std::string_view workload_key,
                                                               std::string_view target, int threads,
                                                               int k) {
  if (k <= 0) return std::vector<TuningRecord>{};
  absl::StatusOr<StatementLease> query = connection_->Prepare(internal::BestQuery(schema_version_));
  if (!query.ok()) return query.status();
  (*query)->Bind(1, workload_key);
  (*query)->Bind(2, target);
  (*query)->Bind(3, threads);
  (*query)->Bind(4, k);
  return CollectRecords(**query, *connection_);
}

absl::StatusOr<std::optional<TuningRecord>> TuningDatabase::Best(std::string_view workload_key,
                                                                 std::string_view target,
                                                                 int threads) {
  absl::StatusOr<std::vector<TuningRecord>> top = TopK(workload_key, target, threads, 1);
  if (!top.ok()) return top.status();
  if (top->empty()) return std::nullopt;
  return std::move(top->front());
}

absl::StatusOr<std::optional<TuningRecord>> TuningDatabase::FindRecord(std::string_view record_id) {
  absl::StatusOr<StatementLease> query = connection_->Prepare(kFindRecordQuery);
  if (!query.ok()) return query.status();
  (*query)->Bind(1, record_id);
  absl::StatusOr<std::vector<TuningRecord>> found = CollectRecords(**query, *connection_);
  if (!found.ok()) return found.status();
  if (found->empty()) return std::nullopt;
  return std::move(found->front());
}

absl::StatusOr<std::vector<TuningRecord>> TuningDatabase::RecordsOfJob(std::string_view job_id) {
  absl::StatusOr<StatementLease> query = connection_->Prepare(kJobRecordsQuery);
  if (!query.ok()) return query.status();
  (*query)->Bind(1, job_id);
  return CollectRecords(**query, *connection_);
}

absl::StatusOr<std::vector<std::string>> TuningDatabase::MeasuredHashes(std::string_view workload_key,
                                                                        std::string_view target,
                                                                        int threads) {
  absl::StatusOr<StatementLease> query = connection_->Prepare(kMeasuredHashesQuery);
  if (!query.ok()) return query.status();
  (*query)->Bind(1, workload_key);
  (*query)->Bind(2, target);
  (*query)->Bind(3, threads);
  std::vector<std::string> hashes;
  while (true) {
    absl::StatusOr<bool> row = (*query)->Step();
    if (!row.ok()) return row.status();
    if (!*row) return hashes;
    hashes.push_back((*query)->Text(0));
  }
}

absl::StatusOr<std::vector<TuningRecord>> TuningDatabase::RecordsOfTarget(std::string_view target,
                                                                         int threads, int limit) {
  if (limit <= 0) return std::vector<TuningRecord>{};
  absl::StatusOr<StatementLease> query = connection_->Prepare(kTargetRecordsQuery);
  if (!query.ok()) return query.status();
  (*query)->Bind(1, target);
  (*query)->Bind(2, threads);
  (*query)->Bind(3, limit);
  return CollectRecords(**query, *connection_);
}

absl::StatusOr<WorkloadStats> TuningDatabase::StatsOf(std::string_view workload_key) {
  absl::StatusOr<StatementLease> query = connection_->Prepare(
      internal::Cat(StatsSelect(schema_version_), " WHERE w.workload_key = ?1 GROUP BY w.workload_id"));
  if (!query.ok()) return query.status();
  (*query)->Bind(1, workload_key);
  absl::StatusOr<bool> row = (*query)->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError(internal::Cat(path(), ": unknown workload ", workload_key));
  return ReadStatsRow(**query);
}

absl::StatusOr<std::vector<WorkloadStats>> TuningDatabase::AllWorkloadStats() {
  absl::StatusOr<StatementLease> query = connection_->Prepare(
      internal::Cat(StatsSelect(schema_version_), " GROUP BY w.workload_id ORDER BY w.workload_key"));
  if (!query.ok()) return query.status();
  std::vector<WorkloadStats> all;
  while (true) {
    absl::StatusOr<bool> row = (*query)->Step();
    if (!row.ok()) return row.status();
    if (!*row) return all;
    all.push_back(ReadStatsRow(**query));
  }
}

absl::StatusOr<int64_t> TuningDatabase::RecordCount() {
  absl::StatusOr<StatementLease> query = connection_->Prepare("SELECT count(*) FROM records");
  if (!query.ok()) return query.status();
  absl::StatusOr<bool> row = (*query)->Step();
  if (!row.ok()) return row.status();
  return (*query)->Int64(0);
}

}  // namespace tunefarm::db
