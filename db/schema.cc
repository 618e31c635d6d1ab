// Opening a database: identify the file, set the pragmas, run migrations.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/sqlite_handle.h"
#include "db/text.h"
#include "db/tuning_database.h"

namespace tunefarm::db {
namespace {

using internal::Connection;
using internal::StatementLease;
using internal::WriteTransaction;

// The whole schema, as an ordered list: migration i takes user_version i to
// i + 1. Released migrations are never edited; a schema change appends one.
constexpr std::array<std::string_view, 3> kMigrations = {
    R"sql(
CREATE TABLE workloads (
  workload_id  INTEGER PRIMARY KEY,
  workload_key TEXT NOT NULL UNIQUE,
  dag_text     TEXT NOT NULL DEFAULT ''  -- canonical DAG text; '' until registered
);
CREATE TABLE targets (
  target_id INTEGER PRIMARY KEY,
  target    TEXT NOT NULL UNIQUE  -- canonical target string
);
CREATE TABLE jobs (
  job_id          TEXT PRIMARY KEY,
  spec_json       TEXT NOT NULL,
  state           TEXT NOT NULL
                  CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  trials_done     INTEGER NOT NULL DEFAULT 0,
  trials_total    INTEGER NOT NULL,
  error_message   TEXT NOT NULL DEFAULT '',
  created_unix_ms INTEGER NOT NULL,
  updated_unix_ms INTEGER NOT NULL
);
CREATE TABLE records (
  id               INTEGER PRIMARY KEY,
  record_id        TEXT NOT NULL UNIQUE,
  workload_id      INTEGER NOT NULL REFERENCES workloads (workload_id),
  target_id        INTEGER NOT NULL REFERENCES targets (target_id),
  threads          INTEGER NOT NULL,
  device_key       TEXT NOT NULL,
  schedule_json    TEXT NOT NULL,
  schedule_hash    TEXT NOT NULL,
  costs_json       TEXT NOT NULL,  -- per-repeat seconds, a JSON array
  mean_cost        REAL,           -- NULL when there are no costs
  error_kind       INTEGER NOT NULL,  -- ErrorKind; 0 = none
  error_code       INTEGER NOT NULL,
  error_message    TEXT NOT NULL,
  max_abs_error    REAL,           -- NULL when not checked
  max_rel_error    REAL,
  job_id           TEXT REFERENCES jobs (job_id),
  created_unix_ms  INTEGER NOT NULL,
  measured_unix_ms INTEGER NOT NULL,
  UNIQUE (workload_id, target_id, threads, schedule_hash)
);
-- best() and top_k(): one seek, then rows already in cost order.
CREATE INDEX records_best ON records (workload_id, target_id, threads, mean_cost)
  WHERE error_kind = 0;
CREATE INDEX records_job ON records (job_id) WHERE job_id IS NOT NULL;
)sql",
    // 2: a running job is claimed by one tuner, with a lease it keeps renewing; a job whose
    // lease ran out was interrupted and may be resumed by any tuner (docs/tuning-db.md "Jobs").
    R"sql(
ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN lease_until_unix_ms INTEGER NOT NULL DEFAULT 0;
)sql",
    // 3: a record's cost is the median of its repeats, not their mean (TuningRecord::Cost):
    // one repeat slowed by another process no longer moves a candidate's rank. The column is
    // renamed (records_best follows it) and recomputed from costs_json; with an even count the
    // median is the mean of the middle two.
    R"sql(
ALTER TABLE records RENAME COLUMN mean_cost TO cost;
UPDATE records SET cost = (
  SELECT avg(value) FROM (
    SELECT value, row_number() OVER (ORDER BY value) AS i, count(*) OVER () AS n
    FROM json_each(records.costs_json))
  WHERE i IN ((n + 1) / 2, (n + 2) / 2))
WHERE json_array_length(costs_json) > 0;
)sql",
};

struct FileIdentity {
  uint32_t application_id = 0;
  int user_version = 0;
  int64_t object_count = 0;  // tables, indexes, ... in sqlite_schema
};

// One statement, so one read transaction: three separate reads could see a
// half-created file (another process's migration committing in between).
constexpr std::string_view kReadIdentity =
    "SELECT (SELECT application_id FROM pragma_application_id),"
    " (SELECT user_version FROM pragma_user_version),"
    " (SELECT count(*) FROM sqlite_schema)";

absl::StatusOr<FileIdentity> ReadIdentity(Connection& connection) {
  absl::StatusOr<StatementLease> query = connection.Prepare(kReadIdentity);
  absl::StatusOr<bool> row = query.ok() ? (*query)->Step() : query.status();
  if (!row.ok()) {
    // The first read of the header is where a foreign file shows up.
    int rc = sqlite3_errcode(connection.handle());
    if (rc == SQLITE_NOTADB) {
      return absl::FailedPreconditionError(
          internal::Cat(connection.path(), ": not a tunefarm database (not an SQLite file)"));
    }
    if ((rc & 0xff) == SQLITE_READONLY) {
      return absl::FailedPreconditionError(internal::Cat(
          connection.path(), ": cannot be written here: writing needs write access to the file and to its "
          "directory, where SQLite keeps ", connection.path(), "-wal and -shm"));
    }
    // SQLite opens files lazily: a missing permission shows up here.
    if (rc == SQLITE_CANTOPEN) {
      const int error = sqlite3_system_errno(connection.handle());
      return absl::FailedPreconditionError(internal::Cat("cannot open ", connection.path(), ": ",
                                                         sqlite3_errmsg(connection.handle()),
                                                         error != 0 ? internal::Cat(" (", std::strerror(error), ")") : ""));
    }
    return row.status();
  }
  if (!*row) return connection.Error(SQLITE_INTERNAL, "reading the file identity");
  FileIdentity identity;
  identity.application_id = static_cast<uint32_t>((*query)->Int64(0));
  identity.user_version = static_cast<int>((*query)->Int64(1));
  identity.object_count = (*query)->Int64(2);
  return identity;
}

// An empty file (application_id 0, nothing in it) becomes a tunefarm database;
// anything else must carry our application_id and a schema we understand.
absl::Status CheckIdentity(const Connection& connection, const FileIdentity& identity) {
  bool empty =
      identity.application_id == 0 && identity.user_version == 0 && identity.object_count == 0;
  if (identity.application_id != TuningDatabase::kApplicationId && !empty) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: not a tunefarm database (application_id 0x%08x)", connection.path(),
                        identity.application_id));
  }
  if (identity.user_version > TuningDatabase::SchemaVersion()) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: written by a newer tunefarm (schema version %d, this binary knows %d)",
                        connection.path(), identity.user_version, TuningDatabase::SchemaVersion()));
  }
  return absl::OkStatus();
}

// The per-connection settings a read-only connection may set.
constexpr std::string_view kConnectionPragmas = "PRAGMA foreign_keys = ON; PRAGMA cache_size = -65536;";

// PRAGMA journal_mode = WAL, retried while another process holds the lock it
// needs. Switching the mode takes an exclusive lock without always calling the
// busy handler (seen when four processes create one file at once), so the
// busy timeout alone does not cover it.
absl::StatusOr<std::string> SwitchToWal(Connection& connection, int busy_timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    absl::StatusOr<StatementLease> wal = connection.Prepare("PRAGMA journal_mode = WAL");
    if (!wal.ok()) return wal.status();
    absl::StatusOr<bool> row = (*wal)->Step();
    if (row.ok()) return *row ? (*wal)->Text(0) : "";
    const bool busy = (sqlite3_errcode(connection.handle()) & 0xff) == SQLITE_BUSY;
    if (!busy || std::chrono::steady_clock::now() + pause > deadline) return row.status();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

absl::Status SetPragmas(Connection& connection, int busy_timeout_ms) {
  // WAL: readers never block the writer, and the unfinished transaction of a
  // killed writer is simply ignored by the next reader. NORMAL is safe in WAL:
  // a commit survives a process crash (the WAL is in the OS page cache); only
  // a power loss can drop the last commits, and even that never corrupts the file.
  absl::StatusOr<std::string> switched = SwitchToWal(connection, busy_timeout_ms);
  if (!switched.ok()) return switched.status();
  const std::string& mode = *switched;
  if (mode != "wal") {
    return absl::FailedPreconditionError(
        internal::Cat(connection.path(), ": cannot switch to WAL journal mode (got '", mode, "')"));
  }
  // foreign_keys is per connection and off by default. The page cache goes
  // from SQLite's 2 MiB to 64 MiB: with less, a big batch or import of
  // records thrashes the indexes (2.4x slower filling 100k records). It
  // grows on demand; it is a bound, not an allocation.
  if (absl::Status status = connection.Exec("PRAGMA synchronous = NORMAL;"); !status.ok()) return status;
  return connection.Exec(kConnectionPragmas);
}

absl::Status Migrate(Connection& connection) {
  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(connection);
  if (!transaction.ok()) return transaction.status();
  // Read again under the write lock: another process may have migrated.
  absl::StatusOr<FileIdentity> identity = ReadIdentity(connection);
  if (!identity.ok()) return identity.status();
  if (absl::Status status = CheckIdentity(connection, *identity); !status.ok()) return status;
  if (identity->user_version == TuningDatabase::SchemaVersion()) return absl::OkStatus();
  for (int version = identity->user_version; version < TuningDatabase::SchemaVersion(); ++version) {
    if (absl::Status status = connection.Exec(kMigrations[version]); !status.ok()) return status;
  }
  // PRAGMA takes no bound parameters; both values are our own integers.
  if (absl::Status status = connection.Exec(internal::Cat(
          "PRAGMA application_id = ", static_cast<int32_t>(TuningDatabase::kApplicationId),
          "; PRAGMA user_version = ", TuningDatabase::SchemaVersion(), ";"));
      !status.ok()) {
    return status;
  }
  return transaction->Commit();
}

// Whether a read-only open failed only because the WAL index (PATH-shm) cannot be created
// beside a WAL database, and no PATH-wal holds changes the main file lacks.
// Only then is reading the main file alone (immutable) the same as reading the database: it is
// in WAL mode (header bytes 18 and 19 are 2), nothing beside it holds changes (no -wal, -shm or
// hot -journal), and we cannot write its directory (so SQLite could not create the index).
bool NeedsWalIndexItCannotCreate(Connection& connection, const std::string& path) {
  const int rc = sqlite3_errcode(connection.handle()) & 0xff;
  if (rc != SQLITE_READONLY && rc != SQLITE_CANTOPEN) return false;
  std::error_code error;
  for (const char* companion : {"-wal", "-shm", "-journal"})
    if (std::filesystem::exists(path + companion, error)) return false;
  std::ifstream in(path, std::ios::binary);
  char header[20] = {};
  if (!in.read(header, sizeof header) || header[18] != 2 || header[19] != 2) return false;
  const std::filesystem::path parent = std::filesystem::absolute(path, error).parent_path();
  return access(parent.c_str(), W_OK) != 0;
}

}  // namespace

int TuningDatabase::SchemaVersion() { return static_cast<int>(kMigrations.size()); }

absl::StatusOr<std::unique_ptr<TuningDatabase>> TuningDatabase::Open(const std::string& path,
                                                                     const OpenOptions& options) {
  const int flags = options.read_only
                        ? SQLITE_OPEN_READONLY
                        : SQLITE_OPEN_READWRITE | (options.create_if_missing ? SQLITE_OPEN_CREATE : 0);
  absl::StatusOr<std::unique_ptr<Connection>> connection = Connection::Open(path, flags);
  if (!connection.ok()) return connection.status();
  sqlite3_busy_timeout((*connection)->handle(), options.busy_timeout_ms);

  // Identify the file before writing anything to it, a foreign file included.
  absl::StatusOr<FileIdentity> identity = ReadIdentity(**connection);
  if (!identity.ok() && options.read_only && NeedsWalIndexItCannotCreate(**connection, path)) {
    // A WAL database read in a directory we cannot write: SQLite cannot create the -shm index
    // it reads through. With no -wal file the main file holds every committed change, and no
    // writer is active (a writer would have made both files), so read it as immutable.
    connection = Connection::Open(path, flags, "immutable=1");
    if (!connection.ok()) return connection.status();
    identity = ReadIdentity(**connection);
  }
  if (!identity.ok() && options.read_only && (sqlite3_errcode((*connection)->handle()) & 0xff) == SQLITE_READONLY) {
    return absl::FailedPreconditionError(internal::Cat(
        path, ": cannot be read here: SQLite reads this WAL database through ", path,
        "-shm, which it cannot create or open (is the directory writable? is a -wal or -shm left beside it by a "
        "writer that did not finish? then its owner can open it once to clean up)"));
  }
  if (!identity.ok()) return identity.status();
  Connection& c = **connection;
  if (absl::Status status = CheckIdentity(c, *identity); !status.ok()) return status;
  if (options.read_only) {
    // An older schema is read as it is (queries of newer columns fall back to their defaults):
    // a read does not migrate.
    if (identity->user_version == 0) {
      return absl::FailedPreconditionError(
          internal::Cat(path, ": an empty file, not a tunefarm database (nothing to read)"));
    }
    if (absl::Status status = c.Exec(kConnectionPragmas); !status.ok()) return status;
    return std::unique_ptr<TuningDatabase>(new TuningDatabase(std::move(*connection), identity->user_version));
  }
  if (absl::Status status = SetPragmas(c, options.busy_timeout_ms); !status.ok()) return status;
  if (identity->user_version < SchemaVersion()) {
    if (absl::Status status = Migrate(c); !status.ok()) return status;
  }
  return std::unique_ptr<TuningDatabase>(new TuningDatabase(std::move(*connection), SchemaVersion()));
}

TuningDatabase::TuningDatabase(std::unique_ptr<internal::Connection> connection, int schema_version)
    : connection_(std::move(connection)), schema_version_(schema_version) {}

TuningDatabase::~TuningDatabase() = default;

const std::string& TuningDatabase::path() const { return connection_->path(); }

absl::Status TuningDatabase::CheckIntegrity() {
  constexpr int kShown = 5;  // a broken file can list a hundred problems
  absl::StatusOr<StatementLease> check = connection_->Prepare("PRAGMA integrity_check");
  if (!check.ok()) return check.status();
  std::string problems;
  int count = 0;
  while (true) {
    absl::StatusOr<bool> row = (*check)->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    std::string line = (*check)->Text(0);
    if (line == "ok") continue;
    if (count++ < kShown) absl::StrAppend(&problems, problems.empty() ? "" : "; ", line);
  }
  if (count == 0) return absl::OkStatus();
  if (count > kShown) absl::StrAppend(&problems, "; ... (", count - kShown, " more)");
  return absl::DataLossError(internal::Cat(path(), ": integrity check failed: ", problems));
}

}  // namespace tunefarm::db
