#include "db/sqlite_handle.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/text.h"

namespace tunefarm::db::internal {
namespace {

absl::StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {  // the primary code of an extended result code
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
      return absl::StatusCode::kUnavailable;
    case SQLITE_CORRUPT:
      return absl::StatusCode::kDataLoss;
    case SQLITE_NOTADB:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_CONSTRAINT:
      return absl::StatusCode::kFailedPrecondition;
    case SQLITE_FULL:
    case SQLITE_NOMEM:
    case SQLITE_TOOBIG:
      return absl::StatusCode::kResourceExhausted;
    default:
      return absl::StatusCode::kInternal;
  }
}

}  // namespace

absl::Status WithContext(const absl::Status& status, std::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(), Cat(context, ": ", status.message()));
}

void Statement::Bind(int index, std::string_view text) {
  Check(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
}

void Statement::BindDouble(int index, double value) {
  if (std::isnan(value)) {
    BindNull(index);
  } else {
    Check(sqlite3_bind_double(stmt_, index, value));
  }
}

void Statement::BindOptional(int index, std::string_view text) {
  if (text.empty()) {
    BindNull(index);
  } else {
    Bind(index, text);
  }
}

absl::StatusOr<bool> Statement::Step() {
  if (bind_rc_ != SQLITE_OK) return connection_->Error(bind_rc_, "binding parameters");
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // The start of the SQL is enough to tell which statement failed.
  std::string_view sql = sqlite3_sql(stmt_);
  constexpr size_t kShown = 60;
  return connection_->Error(
      rc, sql.size() <= kShown ? std::string(sql) : Cat(sql.substr(0, kShown), "..."));
}

absl::Status Statement::Run() {
  absl::StatusOr<bool> row = Step();
  return row.status();
}

double Statement::Double(int column) const {
  if (IsNull(column)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column));
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_rc_ = SQLITE_OK;
}

StatementLease::~StatementLease() {
  if (statement_ == nullptr) return;
  statement_->Reset();
  statement_->leased_ = false;
}

namespace {

// "file:" URI of a path: the characters a URI gives meaning to are percent-encoded.
std::string FileUri(const std::string& path, std::string_view parameters) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      absl::StrAppend(&uri, absl::StrFormat("%%%02X", static_cast<unsigned char>(c)));
    } else {
      uri.push_back(c);
    }
  }
  return absl::StrCat(uri, "?", std::string(parameters));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& path, int flags,
                                                             std::string_view uri_parameters) {
  sqlite3* db = nullptr;
  const std::string name = uri_parameters.empty() ? path : FileUri(path, uri_parameters);
  if (!uri_parameters.empty()) flags |= SQLITE_OPEN_URI;
  int rc = sqlite3_open_v2(name.c_str(), &db, flags | SQLITE_OPEN_EXRESCODE, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    // SQLite's own text ("unable to open database file") does not say why; errno does.
    const int error = db != nullptr ? sqlite3_system_errno(db) : 0;
    if (error != 0) absl::StrAppend(&message, " (", std::strerror(error), ")");
    sqlite3_close(db);
    return absl::Status(CodeFor(rc), Cat("cannot open ", path, ": ", message));
  }
  return std::unique_ptr<Connection>(new Connection(db, path));
}

Connection::~Connection() {
  statements_.clear();
  sqlite3_close(db_);
}

absl::StatusOr<StatementLease> Connection::Prepare(std::string_view sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return Error(rc, Cat("preparing ", sql));
    it = statements_.emplace(std::string(sql), std::make_unique<Statement>(stmt, this)).first;
  }
  Statement& statement = *it->second;
  // Two live leases of one statement would reset each other's cursor.
  if (statement.leased_) return absl::InternalError(Cat("statement already in use: ", sql));
  statement.leased_ = true;
  return StatementLease(&statement);
}

absl::Status Connection::Exec(std::string_view sql) {
  std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, text);
  return absl::OkStatus();
}

absl::Status Connection::Error(int rc, std::string_view what) const {
  // sqlite3_errmsg describes the latest failure on this handle; fall back to
  // the generic text when rc came from elsewhere (a bind, a busy BEGIN).
  std::string message =
      sqlite3_extended_errcode(db_) == rc ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  return absl::Status(CodeFor(rc), Cat(path_, ": ", message, " (", what, ")"));
}

absl::StatusOr<WriteTransaction> WriteTransaction::Begin(Connection& connection) {
  absl::StatusOr<StatementLease> begin = connection.Prepare("BEGIN IMMEDIATE");
  if (!begin.ok()) return begin.status();
  if (absl::Status status = (*begin)->Run(); !status.ok()) return status;
  return WriteTransaction(&connection);
}

WriteTransaction::~WriteTransaction() {
  if (!open_) return;
  // Also right after a failed COMMIT: the transaction is still open then.
  if (sqlite3_get_autocommit(connection_->handle()) == 0) {
    sqlite3_exec(connection_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

absl::Status WriteTransaction::Commit() {
  absl::StatusOr<StatementLease> commit = connection_->Prepare("COMMIT");
  if (!commit.ok()) return commit.status();
  absl::Status status = (*commit)->Run();
  if (status.ok()) open_ = false;
  return status;
}

}  // namespace tunefarm::db::internal
