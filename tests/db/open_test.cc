// Opening: create, reopen, and the files the database must refuse.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "common/file_read.h"
#include "db/tuning_database.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/db/db_test_util.h"

namespace tunefarm::db {
namespace {

using ::testing::HasSubstr;
using testing::MakeRecord;
using testing::TempDir;

// Runs SQL on a raw connection, outside TuningDatabase, to forge files.
void RawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

std::string RawQueryText(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK);
  std::string text;
  if (sqlite3_step(stmt) == SQLITE_ROW) {
    text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return text;
}

std::string ReadBytes(const std::string& path) { return ReadWholeFile(path, "test file").value_or(""); }

TEST(DbOpen, CreatesThenReopensWithData) {
  TempDir dir;
  std::string path = dir.File("tunefarm.db");
  TuningRecord record = MakeRecord("wl", "llvm -mcpu=znver3", 4, "h1", {1e-3, 2e-3});
  {
    absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->AddRecord(record).ok());
  }
  EXPECT_EQ(RawQueryText(path, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(RawQueryText(path, "PRAGMA application_id"),
            std::to_string(TuningDatabase::kApplicationId));
  EXPECT_EQ(RawQueryText(path, "PRAGMA user_version"),
            std::to_string(TuningDatabase::SchemaVersion()));

  absl::StatusOr<std::unique_ptr<TuningDatabase>> reopened = TuningDatabase::Open(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  absl::StatusOr<std::optional<TuningRecord>> found = (*reopened)->FindRecord(record.record_id);
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ(**found, record);
  EXPECT_TRUE((*reopened)->CheckIntegrity().ok());
}

TEST(DbOpen, MissingFileWithoutCreateNamesTheFile) {
  TempDir dir;
  std::string path = dir.File("absent.db");
  OpenOptions options;
  options.create_if_missing = false;
  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path, options);
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(db.status().message(), HasSubstr("cannot open " + path));
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(DbOpen, AFailedOpenSaysWhy) {
  TempDir dir;
  std::ofstream(dir.File("plain")) << "a file, not a directory";
  const std::string path = dir.File("plain/t.db");
  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path, OpenOptions{});
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(db.status().message(), HasSubstr("cannot open " + path));
  EXPECT_THAT(db.status().message(), HasSubstr("Not a directory"));
}

// Opens `path` read-only and counts its records, as a user who cannot write its directory:
// in a child process without privileges when the test runs as root (root writes anywhere).
// Returns the count, or -1 when the open or the query failed (the message goes to stderr).
int CountRecordsWithoutWriteAccess(const std::string& path) {
  const pid_t child = fork();
  if (child == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(254);
    OpenOptions options;
    options.read_only = true;
    absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path, options);
    if (!db.ok()) {
      std::fprintf(stderr, "%s\n", std::string(db.status().message()).c_str());
      _exit(255);
    }
    absl::StatusOr<std::vector<WorkloadStats>> stats = (*db)->AllWorkloadStats();
    if (!stats.ok() || stats->size() != 1) _exit(255);
    _exit(static_cast<int>((*stats)[0].record_count));
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) < 254 ? WEXITSTATUS(status) : -1;
}

TEST(DbOpen, AReadWorksInADirectoryThatCannotBeWritten) {
  TempDir dir;
  const std::string path = dir.File("t.db");
  {
    absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path, OpenOptions{});
    ASSERT_TRUE(db.ok()) << db.status();
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE((*db)->AddRecord(MakeRecord("wk", "llvm -mcpu=x", 1, "h" + std::to_string(i), {1e-3})).ok());
    }
  }
  // Closed cleanly: no -wal or -shm beside it, and SQLite could not create them now.
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                                               std::filesystem::perms::group_read | std::filesystem::perms::group_exec |
                                               std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  std::filesystem::permissions(path, std::filesystem::perms::others_read, std::filesystem::perm_options::add);
  const int records = CountRecordsWithoutWriteAccess(path);
  EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
  // A -wal left beside it may hold committed changes the main file lacks: no immutable read.
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
  std::ofstream(path + "-wal").flush();
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_write, std::filesystem::perm_options::remove);
  const int with_wal = CountRecordsWithoutWriteAccess(path);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
  EXPECT_EQ(records, 3);
  EXPECT_EQ(with_wal, -1);
}

TEST(DbOpen, AWriteInADirectoryThatCannotBeWrittenSaysSo) {
  TempDir dir;
  const std::string path = dir.File("t.db");
  ASSERT_TRUE(TuningDatabase::Open(path, OpenOptions{}).ok());
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all, std::filesystem::perm_options::remove);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                                               std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  std::filesystem::permissions(path, std::filesystem::perms::others_read | std::filesystem::perms::others_write,
                               std::filesystem::perm_options::add);
  std::string message;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  if (child == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
    absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path, OpenOptions{});
    const std::string text = db.ok() ? "opened" : std::string(db.status().message());
    (void)!write(pipe_fds[1], text.data(), text.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  char buffer[512];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, n);
  close(pipe_fds[0]);
  waitpid(child, nullptr, 0);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
  EXPECT_THAT(message, HasSubstr(path + ": cannot be written here"));
  EXPECT_THAT(message, HasSubstr("write access to the file and to its directory"));
}

TEST(DbOpen, RefusesRandomBytesAndLeavesThemAlone) {
  TempDir dir;
  std::string path = dir.File("random.db");
  std::mt19937 rng(7);
  std::string bytes(8192, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  std::ofstream(path, std::ios::binary) << bytes;

  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(db.status().message(), HasSubstr(path + ": not a tunefarm database"));
  EXPECT_EQ(ReadBytes(path), bytes);
}

TEST(DbOpen, RefusesSqliteFileOfAnotherApplication) {
  TempDir dir;
  std::string path = dir.File("other.db");
  RawExec(path, "PRAGMA application_id = 305419896; CREATE TABLE notes (text TEXT);");

  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(db.status().message(),
              HasSubstr(path + ": not a tunefarm database (application_id 0x12345678)"));
  // Refused before any pragma: the foreign file keeps its rollback journal.
  EXPECT_EQ(RawQueryText(path, "PRAGMA journal_mode"), "delete");
}

TEST(DbOpen, RefusesSqliteFileWithTablesButNoApplicationId) {
  TempDir dir;
  std::string path = dir.File("plain.db");
  RawExec(path, "CREATE TABLE records (x INTEGER);");

  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(db.status().message(),
              HasSubstr(path + ": not a tunefarm database (application_id 0x00000000)"));
}

TEST(DbOpen, RefusesDatabaseFromNewerBinary) {
  TempDir dir;
  std::string path = dir.File("newer.db");
  ASSERT_TRUE(TuningDatabase::Open(path).ok());
  int newer = TuningDatabase::SchemaVersion() + 4;
  RawExec(path, "PRAGMA user_version = " + std::to_string(newer));

  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(
      db.status().message(),
      HasSubstr(path + ": written by a newer tunefarm (schema version " + std::to_string(newer) +
                ", this binary knows " + std::to_string(TuningDatabase::SchemaVersion()) + ")"));
}

// Schema 3 ranks by the median of the repeats: a version-2 file (a `mean_cost` column holding
// means) is migrated in place, its ranking column renamed and recomputed.
TEST(DbOpen, MigratesMeanCostsToMedians) {
  TempDir dir;
  std::string path = dir.File("v2.db");
  TuningRecord odd = MakeRecord("wl", "llvm -mcpu=znver3", 4, "odd", {1e-3, 1e-3, 9e-3});
  TuningRecord even = MakeRecord("wl", "llvm -mcpu=znver3", 4, "even", {4e-3, 1e-3, 2e-3, 9e-3});
  TuningRecord failed = MakeRecord("wl", "llvm -mcpu=znver3", 4, "crash", {}, ErrorKind::kCrash);
  {
    absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    const std::vector<TuningRecord> records = {odd, even, failed};
    ASSERT_TRUE((*db)->AddRecords(records).ok());
  }
  // Back to what version 2 wrote.
  RawExec(path,
          "ALTER TABLE records RENAME COLUMN cost TO mean_cost;"
          "UPDATE records SET mean_cost = (SELECT avg(value) FROM json_each(records.costs_json))"
          " WHERE json_array_length(costs_json) > 0;"
          "PRAGMA user_version = 2;");
  ASSERT_EQ(RawQueryText(path, "SELECT mean_cost FROM records WHERE schedule_hash = 'even'"), "0.004");
  {  // Read-only, the file stays at version 2 and ranks by the means it stored.
    absl::StatusOr<std::unique_ptr<TuningDatabase>> old = TuningDatabase::Open(path, {.read_only = true});
    ASSERT_TRUE(old.ok()) << old.status();
    EXPECT_EQ((*old)->schema_version(), 2);
    absl::StatusOr<std::vector<TuningRecord>> top = (*old)->TopK("wl", "llvm -mcpu=znver3", 4, 5);
    ASSERT_TRUE(top.ok()) << top.status();
    ASSERT_EQ(top->size(), 2u);
    EXPECT_EQ((*top)[0].schedule_hash, "odd");
    absl::StatusOr<WorkloadStats> stats = (*old)->StatsOf("wl");
    ASSERT_TRUE(stats.ok()) << stats.status();
    EXPECT_NEAR(stats->best_cost.value_or(0), 11e-3 / 3, 1e-12);
  }

  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ(RawQueryText(path, "PRAGMA user_version"), std::to_string(TuningDatabase::SchemaVersion()));
  EXPECT_EQ(RawQueryText(path, "SELECT cost FROM records WHERE schedule_hash = 'odd'"), "0.001");
  EXPECT_EQ(RawQueryText(path, "SELECT cost FROM records WHERE schedule_hash = 'even'"), "0.003");
  EXPECT_EQ(RawQueryText(path, "SELECT quote(cost) FROM records WHERE schedule_hash = 'crash'"), "NULL");
  absl::StatusOr<std::optional<TuningRecord>> best = (*db)->Best("wl", "llvm -mcpu=znver3", 4);
  ASSERT_TRUE(best.ok() && best->has_value());
  EXPECT_EQ((*best)->schedule_hash, "odd");  // by the mean (3.67 ms vs 4 ms) too, but now 1 vs 3 ms
  EXPECT_TRUE((*db)->CheckIntegrity().ok());
}

TEST(DbOpen, ReportsCorruptionNamingTheFile) {
  TempDir dir;
  std::string path = dir.File("corrupt.db");
  {
    absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    std::vector<TuningRecord> records;
    for (int i = 0; i < 2000; ++i) {
      records.push_back(MakeRecord("wl" + std::to_string(i % 10), "t", 1, "h" + std::to_string(i),
                                   {1e-3 * (i + 1)}));
    }
    ASSERT_TRUE((*db)->AddRecords(records).ok());
  }  // the last connection to close checkpoints the WAL into the file
  std::string bytes = ReadBytes(path);
  ASSERT_GT(bytes.size(), 64u * 4096);
  // Scribble over pages in the middle of the file, past the schema page.
  std::mt19937 rng(11);
  for (size_t i = 8 * 4096; i < bytes.size() - 4096; i += 3) bytes[i] = static_cast<char>(rng());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;

  // The header page is intact, so the file opens; the damage shows on use.
  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  absl::Status count = (*db)->RecordCount().status();
  EXPECT_EQ(count.code(), absl::StatusCode::kDataLoss) << count;
  EXPECT_THAT(count.message(), HasSubstr(path + ": database disk image is malformed"));
  absl::Status integrity = (*db)->CheckIntegrity();
  EXPECT_EQ(integrity.code(), absl::StatusCode::kDataLoss) << integrity;
  EXPECT_THAT(integrity.message(), HasSubstr(path + ": integrity check failed: "));
}

}  // namespace
}  // namespace tunefarm::db
