// The SQLite tuning database (docs/tuning-db.md): measured schedules, the
// best-schedule queries the compiler asks, and the jobs a tuner resumes.
//
// One TuningDatabase is one SQLite connection: use one per thread (or guard
// it). Any number of processes may open the same file at once; writers queue
// on SQLite's write lock for up to OpenOptions::busy_timeout_ms. The file must
// be on a local disk: WAL locking uses shared memory, which network file
// systems do not provide.
//
// Every call returns a Status naming the file when something is wrong; no
// exception leaves this class.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "db/job.h"
#include "db/tuning_record.h"

namespace tunefarm::db {

namespace internal {
class Connection;
}

struct OpenOptions {
  bool create_if_missing = true;
  // Reads only: the file is opened read-only, nothing is created, migrated or switched to WAL,
  // and an empty file is refused instead of becoming a database. Writes fail.
  bool read_only = false;
  // How long a write waits for another connection's write transaction.
  int busy_timeout_ms = 10'000;
};

// What AddRecord did with a record (see "Uniqueness" in docs/tuning-db.md).
enum class WriteOutcome {
  kInserted,      // new (workload, target, threads, schedule hash)
  kReplaced,      // it beat the stored measurement of that schedule, which it replaced
  kKeptExisting,  // the stored measurement of that schedule is as good or better
  kDuplicate,     // this record_id is already stored: nothing changed
};

struct WriteCounts {
  int64_t inserted = 0;
  int64_t replaced = 0;
  int64_t kept_existing = 0;
  int64_t duplicates = 0;

  void Count(WriteOutcome outcome);
  // Rows that changed; 0 means the write was a no-op.
  int64_t changed() const { return inserted + replaced; }
};

struct ImportStats {
  int64_t lines = 0;  // records read (blank lines are skipped)
  WriteCounts writes;
};

struct WorkloadStats {
  std::string workload_key;
  int64_t record_count = 0;
  int64_t valid_count = 0;
  std::optional<double> best_cost;  // lowest cost (median of repeats) of a valid record
  int64_t target_count = 0;         // distinct targets with a record
};

class TuningDatabase {
 public:
  static constexpr uint32_t kApplicationId = 0x54554e46;  // "TUNF"
  // The user_version this binary writes: the number of migrations.
  static int SchemaVersion();

  // Opens or creates the database and migrates it to SchemaVersion(). Refuses
  // a file that is not a tunefarm database or was written by a newer binary.
  static absl::StatusOr<std::unique_ptr<TuningDatabase>> Open(const std::string& path,
                                                              const OpenOptions& options = {});
  ~TuningDatabase();
  TuningDatabase(const TuningDatabase&) = delete;
  TuningDatabase& operator=(const TuningDatabase&) = delete;

  const std::string& path() const;
  // The file's schema version: SchemaVersion(), except for an older file opened read-only.
  int schema_version() const { return schema_version_; }

  // PRAGMA integrity_check; DataLoss naming the file when it fails.
  absl::Status CheckIntegrity();

  // --- workloads (record_store.cc)
  // Stores the canonical DAG text of a workload. Registering the same text
  // again is a no-op; a different text under the same key is refused.
  absl::Status RegisterWorkload(std::string_view workload_key, std::string_view dag_text);
  // The registered DAG text; "" for a workload only known from its records.
  absl::StatusOr<std::string> WorkloadDagText(std::string_view workload_key);

  // --- writes (record_store.cc), each one BEGIN IMMEDIATE transaction
  // A record naming a job needs that job to exist (CreateJob).
  absl::StatusOr<WriteOutcome> AddRecord(const TuningRecord& record);
  // All or nothing: on error no record of the batch is stored.
  absl::StatusOr<WriteCounts> AddRecords(std::span<const TuningRecord> records);

  // --- queries (record_queries.cc); only valid records (no error) rank
  absl::StatusOr<std::optional<TuningRecord>> Best(std::string_view workload_key,
                                                   std::string_view target, int threads);
  // Up to k valid records, fastest first.
  absl::StatusOr<std::vector<TuningRecord>> TopK(std::string_view workload_key,
                                                 std::string_view target, int threads, int k);
  absl::StatusOr<std::optional<TuningRecord>> FindRecord(std::string_view record_id);
  // The schedule hashes of every record (valid or not) of a workload on a target and thread
  // count: what a tuner must not measure again.
  absl::StatusOr<std::vector<std::string>> MeasuredHashes(std::string_view workload_key,
                                                          std::string_view target, int threads);
  // Up to `limit` records of any workload on a target and thread count, newest first (valid
  // or not): what a cost model warm-starts from.
  absl::StatusOr<std::vector<TuningRecord>> RecordsOfTarget(std::string_view target, int threads,
                                                            int limit);
  // In insertion order.
  absl::StatusOr<std::vector<TuningRecord>> RecordsOfJob(std::string_view job_id);
  // NotFound for a workload the database has never seen.
  absl::StatusOr<WorkloadStats> StatsOf(std::string_view workload_key);
  // Every workload, by key.
  absl::StatusOr<std::vector<WorkloadStats>> AllWorkloadStats();
  absl::StatusOr<int64_t> RecordCount();

  // --- jobs (job_store.cc)
  // spec_json must be valid JSON; the job starts queued with a new UUID.
  absl::StatusOr<Job> CreateJob(std::string_view spec_json, int64_t trials_total);
  absl::StatusOr<Job> GetJob(std::string_view job_id);
  // Oldest first; with a state, only jobs in that state (e.g. kRunning to resume).
  absl::StatusOr<std::vector<Job>> ListJobs(std::optional<JobState> state = std::nullopt);
  // Refused (FailedPrecondition) once the job is done, failed or cancelled.
  absl::Status UpdateJobProgress(std::string_view job_id, int64_t trials_done);
  absl::Status SetJobState(std::string_view job_id, JobState state,
                           std::string_view error_message = "");
  // Claims an unfinished job for `owner` (a tuner process) until now + lease_ms, or renews the
  // claim `owner` holds. False when another owner's lease has not run out: that tuner runs
  // the job. A job whose owner died is free again once its lease runs out.
  // `dead_owner`, when given, is an owner the caller knows to be dead (a process of this host
  // that no longer exists): its claim is taken over at once instead of after its lease.
  absl::StatusOr<bool> ClaimJob(std::string_view job_id, std::string_view owner, int64_t lease_ms,
                                std::string_view dead_owner = "");
  // Gives the claim up (only `owner`'s): the job can be resumed at once, by anyone.
  absl::Status ReleaseJob(std::string_view job_id, std::string_view owner);

  // --- JSON lines (jsonl.cc): one RecordToJson object per line
  // Returns the number of records written.
  absl::StatusOr<int64_t> ExportJsonl(std::ostream& out);
  absl::StatusOr<int64_t> ExportJsonl(const std::string& path);
  // One transaction: a bad line imports nothing; the error lists the bad lines
  // ("<source>:<line>: ...", the first kMaxReportedBadLines of them).
  // Records whose job is unknown here bring a stub job (state done). `check`, when given,
  // vets each parsed record beyond what the database itself can (the CLI checks that the
  // target parses and that the schedule replays on a known DAG).
  using RecordCheck = std::function<absl::Status(const TuningRecord&)>;
  static constexpr int kMaxReportedBadLines = 10;
  absl::StatusOr<ImportStats> ImportJsonl(std::istream& in, std::string_view source_name,
                                          const RecordCheck& check = nullptr);
  absl::StatusOr<ImportStats> ImportJsonl(const std::string& path);

 private:
  enum class UnknownJob { kRefuse, kCreateStub };

  TuningDatabase(std::unique_ptr<internal::Connection> connection, int schema_version);

  // The body of AddRecord, inside a transaction the caller holds.
  absl::StatusOr<WriteOutcome> WriteRecord(const TuningRecord& record, UnknownJob unknown_job);

  std::unique_ptr<internal::Connection> connection_;
  // The file's schema: SchemaVersion() unless opened read-only on an older file.
  int schema_version_;
};

}  // namespace tunefarm::db
