// Internal to db/: RAII over the SQLite C API, and errors that name the file.
//
// A Connection owns one sqlite3 handle and a cache of prepared statements
// (preparing costs more than running best() itself). Statements are leased:
// the lease resets the statement when it goes away, because an un-reset
// SELECT keeps a read transaction open, which pins an old WAL snapshot and
// stops checkpoints.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tunefarm::db::internal {

class Connection;

// The same status with "<context>: " in front of its message.
absl::Status WithContext(const absl::Status& status, std::string_view context);

class Statement {
 public:
  Statement(sqlite3_stmt* stmt, const Connection* connection)
      : stmt_(stmt), connection_(connection) {}
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite. A failed bind is reported by Step().
  void Bind(int index, int64_t value) { Check(sqlite3_bind_int64(stmt_, index, value)); }
  void Bind(int index, int value) { Bind(index, static_cast<int64_t>(value)); }
  void Bind(int index, std::string_view text);
  void BindNull(int index) { Check(sqlite3_bind_null(stmt_, index)); }
  // NaN binds as NULL (SQLite would do the same, silently).
  void BindDouble(int index, double value);
  // An empty string binds as NULL (optional text references such as job_id).
  void BindOptional(int index, std::string_view text);

  // True while there is a row to read; false when the statement is done.
  absl::StatusOr<bool> Step();
  // Runs a statement that returns no rows of interest.
  absl::Status Run();

  // Columns are 0-based, as in SQLite. NULL reads as 0, NaN or "".
  int64_t Int64(int column) const { return sqlite3_column_int64(stmt_, column); }
  double Double(int column) const;
  std::string Text(int column) const;
  bool IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

  void Reset();

 private:
  friend class Connection;
  friend class StatementLease;
  void Check(int rc) {
    if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  }

  sqlite3_stmt* stmt_;
  const Connection* connection_;
  int bind_rc_ = SQLITE_OK;
  bool leased_ = false;
};

// A cached statement in use; resets it (and clears its bindings) when done.
class StatementLease {
 public:
  explicit StatementLease(Statement* statement) : statement_(statement) {}
  ~StatementLease();
  StatementLease(StatementLease&& other) noexcept : statement_(other.statement_) {
    other.statement_ = nullptr;
  }
  StatementLease(const StatementLease&) = delete;
  StatementLease& operator=(const StatementLease&) = delete;
  StatementLease& operator=(StatementLease&&) = delete;

  Statement* operator->() const { return statement_; }
  Statement& operator*() const { return *statement_; }

 private:
  Statement* statement_;
};

class Connection {
 public:
  // flags: SQLITE_OPEN_* (READWRITE, CREATE). uri_parameters, when not empty, are SQLite URI
  // parameters such as "immutable=1"; messages still name the plain path.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(const std::string& path, int flags,
                                                          std::string_view uri_parameters = "");
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

  // A prepared statement from the cache (prepared on first use).
  absl::StatusOr<StatementLease> Prepare(std::string_view sql);
  // Runs SQL without parameters, possibly several statements (schema, pragmas).
  absl::Status Exec(std::string_view sql);

  // "<path>: <SQLite's message> (<what>)", with a status code by kind of failure.
  absl::Status Error(int rc, std::string_view what) const;

 private:
  Connection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_;
  std::string path_;
  // Destroyed (finalized) before db_ is closed, in ~Connection.
  std::map<std::string, std::unique_ptr<Statement>, std::less<>> statements_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back if Commit() is never reached.
// IMMEDIATE takes the write lock up front (waiting up to the busy timeout), so
// a writer never fails half-way with SQLITE_BUSY on upgrading a read lock.
class WriteTransaction {
 public:
  static absl::StatusOr<WriteTransaction> Begin(Connection& connection);
  WriteTransaction(WriteTransaction&& other) noexcept
      : connection_(other.connection_), open_(other.open_) {
    other.open_ = false;
  }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  WriteTransaction& operator=(WriteTransaction&&) = delete;
  ~WriteTransaction();

  absl::Status Commit();

 private:
  explicit WriteTransaction(Connection* connection) : connection_(connection), open_(true) {}

  Connection* connection_;
  bool open_;
};

}  // namespace tunefarm::db::internal
