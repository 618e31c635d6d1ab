// Jobs: create, read, list, and the progress/state updates a tuner makes.
#include <string>

#include "db/clock.h"
#include "db/record_id.h"
#include "db/sqlite_handle.h"
#include "db/text.h"
#include "db/tuning_database.h"
#include "nlohmann/json.hpp"

namespace tunefarm::db {
namespace {

using internal::Connection;
using internal::Statement;
using internal::StatementLease;
using internal::WriteTransaction;

// The columns of a Job; a file of schema 1 (opened read-only, so not migrated) has no claim
// columns, and reads them as unclaimed.
std::string SelectJob(int schema_version) {
  return internal::Cat(
      "SELECT job_id, spec_json, state, trials_done, trials_total, error_message, created_unix_ms, updated_unix_ms, ",
      schema_version >= 2 ? "owner, lease_until_unix_ms" : "'', 0", " FROM jobs");
}

absl::StatusOr<Job> ReadJobRow(const Statement& s, const Connection& connection) {
  Job job;
  job.job_id = s.Text(0);
  job.spec_json = s.Text(1);
  absl::StatusOr<JobState> state = ParseJobState(s.Text(2));
  if (!state.ok()) {
    return absl::DataLossError(
        internal::Cat(connection.path(), ": job ", job.job_id, ": ", state.status().message()));
  }
  job.state = *state;
  job.trials_done = s.Int64(3);
  job.trials_total = s.Int64(4);
  job.error_message = s.Text(5);
  job.created_unix_ms = s.Int64(6);
  job.updated_unix_ms = s.Int64(7);
  job.owner = s.Text(8);
  job.lease_until_unix_ms = s.Int64(9);
  return job;
}

// Reads the job inside the caller's transaction.
absl::StatusOr<Job> LoadJob(Connection& connection, int schema_version, std::string_view job_id) {
  absl::StatusOr<StatementLease> query =
      connection.Prepare(internal::Cat(SelectJob(schema_version), " WHERE job_id = ?1"));
  if (!query.ok()) return query.status();
  (*query)->Bind(1, job_id);
  absl::StatusOr<bool> row = (*query)->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError(internal::Cat(connection.path(), ": unknown job ", job_id));
  return ReadJobRow(**query, connection);
}

absl::Status RefuseIfFinal(const Connection& connection, const Job& job) {
  if (!IsFinal(job.state)) return absl::OkStatus();
  return absl::FailedPreconditionError(internal::Cat(connection.path(), ": job ", job.job_id,
                                                     " is already ", JobStateName(job.state)));
}

// The job, read inside the caller's transaction, unless it is final: a final state is final (a
// cancelled job must not come back on a restart).
absl::StatusOr<Job> LoadLiveJob(Connection& connection, int schema_version, std::string_view job_id) {
  absl::StatusOr<Job> job = LoadJob(connection, schema_version, job_id);
  if (!job.ok()) return job.status();
  if (absl::Status status = RefuseIfFinal(connection, *job); !status.ok()) return status;
  return job;
}

// Runs `sql`, an UPDATE of the jobs table whose ?1 is the job id, with `values` bound to ?2, ?3...
template <typename... Values>
absl::Status UpdateJob(Connection& connection, std::string_view sql, std::string_view job_id,
                       const Values&... values) {
  absl::StatusOr<StatementLease> update = connection.Prepare(sql);
  if (!update.ok()) return update.status();
  (*update)->Bind(1, job_id);
  int index = 2;
  ((*update)->Bind(index++, values), ...);
  return (*update)->Run();
}

}  // namespace

absl::StatusOr<Job> TuningDatabase::CreateJob(std::string_view spec_json, int64_t trials_total) {
  if (!nlohmann::json::accept(spec_json)) {
    return absl::InvalidArgumentError(internal::Cat(path(), ": job spec is not valid JSON"));
  }
  if (trials_total < 0) {
    return absl::InvalidArgumentError(internal::Cat(path(), ": negative trial budget"));
  }
  absl::StatusOr<std::string> job_id = NewUuidV4();
  if (!job_id.ok()) return job_id.status();
  Job job;
  job.job_id = *job_id;
  job.spec_json = std::string(spec_json);
  job.trials_total = trials_total;
  job.created_unix_ms = job.updated_unix_ms = internal::NowUnixMs();

  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(*connection_);
  if (!transaction.ok()) return transaction.status();
  {
    absl::StatusOr<StatementLease> insert = connection_->Prepare(
        "INSERT INTO jobs (job_id, spec_json, state, trials_done, trials_total, error_message,"
        " created_unix_ms, updated_unix_ms) VALUES (?1, ?2, ?3, 0, ?4, '', ?5, ?5)");
    if (!insert.ok()) return insert.status();
    (*insert)->Bind(1, job.job_id);
    (*insert)->Bind(2, job.spec_json);
    (*insert)->Bind(3, JobStateName(job.state));
    (*insert)->Bind(4, job.trials_total);
    (*insert)->Bind(5, job.created_unix_ms);
    if (absl::Status status = (*insert)->Run(); !status.ok()) return status;
  }
  if (absl::Status status = transaction->Commit(); !status.ok()) return status;
  return job;
}

absl::StatusOr<Job> TuningDatabase::GetJob(std::string_view job_id) {
  return LoadJob(*connection_, schema_version_, job_id);
}

absl::StatusOr<std::vector<Job>> TuningDatabase::ListJobs(std::optional<JobState> state) {
  // rowid follows insertion, which breaks ties between jobs made in one millisecond.
  absl::StatusOr<StatementLease> query = connection_->Prepare(
      state.has_value() ? internal::Cat(SelectJob(schema_version_), " WHERE state = ?1 ORDER BY rowid")
                        : internal::Cat(SelectJob(schema_version_), " ORDER BY rowid"));
  if (!query.ok()) return query.status();
  if (state.has_value()) (*query)->Bind(1, JobStateName(*state));
  std::vector<Job> jobs;
  while (true) {
    absl::StatusOr<bool> row = (*query)->Step();
    if (!row.ok()) return row.status();
    if (!*row) return jobs;
    absl::StatusOr<Job> job = ReadJobRow(**query, *connection_);
    if (!job.ok()) return job.status();
    jobs.push_back(*std::move(job));
  }
}

absl::Status TuningDatabase::UpdateJobProgress(std::string_view job_id, int64_t trials_done) {
  if (trials_done < 0) {
    return absl::InvalidArgumentError(
        internal::Cat(path(), ": negative trials_done for job ", job_id));
  }
  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(*connection_);
  if (!transaction.ok()) return transaction.status();
  if (absl::StatusOr<Job> job = LoadLiveJob(*connection_, schema_version_, job_id); !job.ok()) return job.status();
  constexpr std::string_view kUpdate = "UPDATE jobs SET trials_done = ?2, updated_unix_ms = ?3 WHERE job_id = ?1";
  if (absl::Status status = UpdateJob(*connection_, kUpdate, job_id, trials_done, internal::NowUnixMs()); !status.ok())
    return status;
  return transaction->Commit();
}

absl::Status TuningDatabase::SetJobState(std::string_view job_id, JobState state,
                                         std::string_view error_message) {
  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(*connection_);
  if (!transaction.ok()) return transaction.status();
  if (absl::StatusOr<Job> job = LoadLiveJob(*connection_, schema_version_, job_id); !job.ok()) return job.status();
  constexpr std::string_view kUpdate =
      "UPDATE jobs SET state = ?2, error_message = ?3, updated_unix_ms = ?4 WHERE job_id = ?1";
  if (absl::Status status =
          UpdateJob(*connection_, kUpdate, job_id, JobStateName(state), error_message, internal::NowUnixMs());
      !status.ok())
    return status;
  return transaction->Commit();
}

absl::StatusOr<bool> TuningDatabase::ClaimJob(std::string_view job_id, std::string_view owner, int64_t lease_ms,
                                              std::string_view dead_owner) {
  if (owner.empty()) return absl::InvalidArgumentError(internal::Cat(path(), ": claiming job ", job_id, " without an owner"));
  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(*connection_);
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<Job> job = LoadLiveJob(*connection_, schema_version_, job_id);
  if (!job.ok()) return job.status();
  const int64_t now = internal::NowUnixMs();
  const bool free = job->owner.empty() || job->owner == owner || job->lease_until_unix_ms < now ||
                    (!dead_owner.empty() && job->owner == dead_owner);
  if (!free) return false;
  constexpr std::string_view kUpdate = "UPDATE jobs SET owner = ?2, lease_until_unix_ms = ?3 WHERE job_id = ?1";
  if (absl::Status status = UpdateJob(*connection_, kUpdate, job_id, owner, now + lease_ms); !status.ok())
    return status;
  if (absl::Status status = transaction->Commit(); !status.ok()) return status;
  return true;
}

absl::Status TuningDatabase::ReleaseJob(std::string_view job_id, std::string_view owner) {
  absl::StatusOr<StatementLease> update = connection_->Prepare(
      "UPDATE jobs SET owner = '', lease_until_unix_ms = 0 WHERE job_id = ?1 AND owner = ?2");
  if (!update.ok()) return update.status();
  (*update)->Bind(1, job_id);
  (*update)->Bind(2, owner);
  return (*update)->Run();
}

}  // namespace tunefarm::db
