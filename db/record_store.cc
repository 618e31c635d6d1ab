// Writes: workloads, targets and records, with the uniqueness rule.
#include <string>

#include "db/clock.h"
#include "db/record_row.h"
#include "db/sqlite_handle.h"
#include "db/text.h"
#include "db/tuning_database.h"

namespace tunefarm::db {
namespace {

using internal::Connection;
using internal::StatementLease;
using internal::WriteTransaction;

constexpr std::string_view kRecordIdExists = "SELECT 1 FROM records WHERE record_id = ?1";
constexpr std::string_view kJobExists = "SELECT 1 FROM jobs WHERE job_id = ?1";
constexpr std::string_view kInsertStubJob =
    "INSERT INTO jobs (job_id, spec_json, state, trials_total, created_unix_ms, updated_unix_ms)"
    " VALUES (?1, '{\"imported\":true}', 'done', 0, ?2, ?2)";
constexpr std::string_view kFindWorkload =
    "SELECT workload_id FROM workloads WHERE workload_key = ?1";
constexpr std::string_view kInsertWorkload = "INSERT INTO workloads (workload_key) VALUES (?1)";
constexpr std::string_view kFindTarget = "SELECT target_id FROM targets WHERE target = ?1";
constexpr std::string_view kInsertTarget = "INSERT INTO targets (target) VALUES (?1)";
constexpr std::string_view kFindSchedule =
    "SELECT id, error_kind, cost FROM records"
    " WHERE workload_id = ?1 AND target_id = ?2 AND threads = ?3 AND schedule_hash = ?4";
constexpr std::string_view kInsertRecord =
    "INSERT INTO records (record_id, workload_id, target_id, threads, device_key, schedule_json,"
    " schedule_hash, costs_json, cost, error_kind, error_code, error_message, max_abs_error,"
    " max_rel_error, job_id, created_unix_ms, measured_unix_ms)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";
// Replacing keeps the row (its id) but takes every field, record_id included:
// the stored row is always the best measurement seen of that schedule.
constexpr std::string_view kReplaceRecord =
    "UPDATE records SET record_id = ?1, workload_id = ?2, target_id = ?3, threads = ?4,"
    " device_key = ?5, schedule_json = ?6, schedule_hash = ?7, costs_json = ?8, cost = ?9,"
    " error_kind = ?10, error_code = ?11, error_message = ?12, max_abs_error = ?13,"
    " max_rel_error = ?14, job_id = ?15, created_unix_ms = ?16, measured_unix_ms = ?17"
    " WHERE id = ?18";

// True when `sql` with one text parameter returns a row.
absl::StatusOr<bool> Exists(Connection& connection, std::string_view sql, std::string_view key) {
  absl::StatusOr<StatementLease> statement = connection.Prepare(sql);
  if (!statement.ok()) return statement.status();
  (*statement)->Bind(1, key);
  return (*statement)->Step();
}

// The row id for `key`, inserting the row when it is missing.
absl::StatusOr<int64_t> InternKey(Connection& connection, std::string_view find_sql,
                                  std::string_view insert_sql, std::string_view key) {
  {
    absl::StatusOr<StatementLease> find = connection.Prepare(find_sql);
    if (!find.ok()) return find.status();
    (*find)->Bind(1, key);
    absl::StatusOr<bool> row = (*find)->Step();
    if (!row.ok()) return row.status();
    if (*row) return (*find)->Int64(0);
  }
  absl::StatusOr<StatementLease> insert = connection.Prepare(insert_sql);
  if (!insert.ok()) return insert.status();
  (*insert)->Bind(1, key);
  if (absl::Status status = (*insert)->Run(); !status.ok()) return status;
  return sqlite3_last_insert_rowid(connection.handle());
}

struct StoredMeasurement {
  int64_t id = 0;
  bool valid = false;
  double cost = 0.0;  // the median of its repeats
};

absl::StatusOr<std::optional<StoredMeasurement>> FindSchedule(Connection& connection,
                                                              int64_t workload_id,
                                                              int64_t target_id,
                                                              const TuningRecord& record) {
  absl::StatusOr<StatementLease> find = connection.Prepare(kFindSchedule);
  if (!find.ok()) return find.status();
  (*find)->Bind(1, workload_id);
  (*find)->Bind(2, target_id);
  (*find)->Bind(3, record.threads);
  (*find)->Bind(4, record.schedule_hash);
  absl::StatusOr<bool> row = (*find)->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::nullopt;
  StoredMeasurement stored;
  stored.id = (*find)->Int64(0);
  stored.valid = (*find)->Int64(1) == static_cast<int>(ErrorKind::kNone) && !(*find)->IsNull(2);
  stored.cost = (*find)->Double(2);
  return stored;
}

}  // namespace

void WriteCounts::Count(WriteOutcome outcome) {
  switch (outcome) {
    case WriteOutcome::kInserted:
      ++inserted;
      break;
    case WriteOutcome::kReplaced:
      ++replaced;
      break;
    case WriteOutcome::kKeptExisting:
      ++kept_existing;
      break;
    case WriteOutcome::kDuplicate:
      ++duplicates;
      break;
  }
}

absl::StatusOr<WriteOutcome> TuningDatabase::WriteRecord(const TuningRecord& record,
                                                         UnknownJob unknown_job) {
  Connection& c = *connection_;
  if (absl::Status status = ValidateRecord(record); !status.ok()) {
    return internal::WithContext(status, c.path());
  }
  absl::StatusOr<bool> seen = Exists(c, kRecordIdExists, record.record_id);
  if (!seen.ok()) return seen.status();
  if (*seen) return WriteOutcome::kDuplicate;

  absl::StatusOr<int64_t> workload_id =
      InternKey(c, kFindWorkload, kInsertWorkload, record.workload_key);
  if (!workload_id.ok()) return workload_id.status();
  absl::StatusOr<int64_t> target_id = InternKey(c, kFindTarget, kInsertTarget, record.target);
  if (!target_id.ok()) return target_id.status();
  absl::StatusOr<std::optional<StoredMeasurement>> stored =
      FindSchedule(c, *workload_id, *target_id, record);
  if (!stored.ok()) return stored.status();
  if (stored->has_value() && !IsBetterMeasurement(record.IsValid(), record.Cost(),
                                                  (*stored)->valid, (*stored)->cost)) {
    return WriteOutcome::kKeptExisting;
  }

  // Checked here rather than left to the foreign key, to name the job.
  if (!record.job_id.empty()) {
    absl::StatusOr<bool> job_known = Exists(c, kJobExists, record.job_id);
    if (!job_known.ok()) return job_known.status();
    if (!*job_known && unknown_job == UnknownJob::kRefuse) {
      return absl::NotFoundError(internal::Cat(c.path(), ": record ", record.record_id,
                                               " names unknown job ", record.job_id));
    }
    if (!*job_known) {
      absl::StatusOr<StatementLease> stub = c.Prepare(kInsertStubJob);
      if (!stub.ok()) return stub.status();
      (*stub)->Bind(1, record.job_id);
      (*stub)->Bind(2, internal::NowUnixMs());
      if (absl::Status status = (*stub)->Run(); !status.ok()) return status;
    }
  }

  bool replace = stored->has_value();
  absl::StatusOr<StatementLease> write = c.Prepare(replace ? kReplaceRecord : kInsertRecord);
  if (!write.ok()) return write.status();
  internal::BindRecordParams(**write, record, *workload_id, *target_id);
  if (replace) (*write)->Bind(internal::kRecordParamCount + 1, (*stored)->id);
  if (absl::Status status = (*write)->Run(); !status.ok()) return status;
  return replace ? WriteOutcome::kReplaced : WriteOutcome::kInserted;
}

absl::StatusOr<WriteOutcome> TuningDatabase::AddRecord(const TuningRecord& record) {
  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(*connection_);
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<WriteOutcome> outcome = WriteRecord(record, UnknownJob::kRefuse);
  if (!outcome.ok()) return outcome.status();
  if (absl::Status status = transaction->Commit(); !status.ok()) return status;
  return outcome;
}

absl::StatusOr<WriteCounts> TuningDatabase::AddRecords(std::span<const TuningRecord> records) {
  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(*connection_);
  if (!transaction.ok()) return transaction.status();
  WriteCounts counts;
  for (size_t i = 0; i < records.size(); ++i) {
    absl::StatusOr<WriteOutcome> outcome = WriteRecord(records[i], UnknownJob::kRefuse);
    if (!outcome.ok()) {
      return internal::WithContext(outcome.status(),
                                   internal::Cat("record ", i + 1, " of ", records.size()));
    }
    counts.Count(*outcome);
  }
  if (absl::Status status = transaction->Commit(); !status.ok()) return status;
  return counts;
}

absl::Status TuningDatabase::RegisterWorkload(std::string_view workload_key,
                                              std::string_view dag_text) {
  Connection& c = *connection_;
  if (workload_key.empty()) return absl::InvalidArgumentError(c.path() + ": empty workload key");
  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(c);
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<int64_t> id = InternKey(c, kFindWorkload, kInsertWorkload, workload_key);
  if (!id.ok()) return id.status();
  std::string stored;
  {
    absl::StatusOr<StatementLease> read =
        c.Prepare("SELECT dag_text FROM workloads WHERE workload_id = ?1");
    if (!read.ok()) return read.status();
    (*read)->Bind(1, *id);
    absl::StatusOr<bool> row = (*read)->Step();
    if (!row.ok()) return row.status();
    stored = (*read)->Text(0);
  }
  if (stored == dag_text) return transaction->Commit();
  // The key is a hash of the text: two texts under one key is a bug upstream.
  if (!stored.empty()) {
    return absl::AlreadyExistsError(internal::Cat(c.path(), ": workload ", workload_key,
                                                  " is registered with a different DAG text"));
  }
  absl::StatusOr<StatementLease> update =
      c.Prepare("UPDATE workloads SET dag_text = ?2 WHERE workload_id = ?1");
  if (!update.ok()) return update.status();
  (*update)->Bind(1, *id);
  (*update)->Bind(2, dag_text);
  if (absl::Status status = (*update)->Run(); !status.ok()) return status;
  return transaction->Commit();
}

absl::StatusOr<std::string> TuningDatabase::WorkloadDagText(std::string_view workload_key) {
  absl::StatusOr<StatementLease> read =
      connection_->Prepare("SELECT dag_text FROM workloads WHERE workload_key = ?1");
  if (!read.ok()) return read.status();
  (*read)->Bind(1, workload_key);
  absl::StatusOr<bool> row = (*read)->Step();
  if (!row.ok()) return row.status();
  if (!*row) {
    return absl::NotFoundError(internal::Cat(path(), ": unknown workload ", workload_key));
  }
  return (*read)->Text(0);
}

}  // namespace tunefarm::db
