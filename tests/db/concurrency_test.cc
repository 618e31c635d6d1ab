// Several processes on one file: concurrent writers, and writers killed with
// SIGKILL mid-flight. The writers are tunefarm_db_stress_writer processes.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "db/tuning_database.h"
#include "gtest/gtest.h"
#include "tests/db/db_test_util.h"

extern char** environ;

namespace tunefarm::db {
namespace {

using testing::TempDir;

pid_t SpawnWriter(const std::vector<std::string>& args) {
  std::vector<std::string> all = {TUNEFARM_DB_STRESS_WRITER};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : all) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  EXPECT_EQ(rc, 0) << "posix_spawn " << argv[0] << ": " << std::strerror(rc);
  return rc == 0 ? pid : -1;
}

// waitpid with a deadline; a writer still running then is killed and reported.
int WaitWithDeadline(pid_t pid, std::chrono::steady_clock::time_point deadline) {
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "writer " << pid << " still running at the deadline; killing it";
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status;
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::unique_ptr<TuningDatabase> OpenOrDie(const std::string& path) {
  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
  EXPECT_TRUE(db.ok()) << db.status();
  return db.ok() ? *std::move(db) : nullptr;
}

// The four writers also race to create the file: creation is one migration
// transaction, so exactly one of them creates the schema.
TEST(DbConcurrency, FourProcessesCommitTwentyThousandSingleRowTransactions) {
  constexpr int kWriters = 4;
  constexpr int kRowsEach = 5000;
  TempDir dir;
  std::string path = dir.File("tunefarm.db");
  std::vector<pid_t> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.push_back(SpawnWriter({"--db", path, "--report", dir.File("report" + std::to_string(w)),
                                   "--writer", "w" + std::to_string(w), "--mode", "single",
                                   "--count", std::to_string(kRowsEach)}));
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  for (int w = 0; w < kWriters; ++w) {
    ASSERT_GT(writers[w], 0);
    int status = WaitWithDeadline(writers[w], deadline);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer " << w << " " << status;
    EXPECT_EQ(ReadLines(dir.File("report" + std::to_string(w))),
              std::vector<std::string>{"errors=0"});
  }

  std::unique_ptr<TuningDatabase> db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  EXPECT_TRUE(db->CheckIntegrity().ok());
  EXPECT_EQ(db->RecordCount().value_or(-1), kWriters * kRowsEach);
  for (int w = 0; w < kWriters; ++w) {
    absl::StatusOr<WorkloadStats> stats = db->StatsOf("single-w" + std::to_string(w));
    ASSERT_TRUE(stats.ok()) << stats.status();
    EXPECT_EQ(stats->record_count, kRowsEach);
  }
}

TEST(DbConcurrency, CommittedBatchesSurviveTwentySigkills) {
  constexpr int kKills = 20;
  constexpr int kBatchRows = 50;
  TempDir dir;
  std::string path = dir.File("tunefarm.db");
  std::string report = dir.File("committed");
  std::mt19937 rng(20240611);
  // From "still opening the file" to "many batches in": the first kill may
  // land while the schema is being created.
  std::uniform_int_distribution<int> delay_ms(5, 250);

  for (int run = 0; run < kKills; ++run) {
    pid_t pid = SpawnWriter({"--db", path, "--report", report, "--writer",
                             "run" + std::to_string(run), "--mode", "batches", "--count", "1000000",
                             "--batch-size", std::to_string(kBatchRows)});
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    // A writer that exited on its own failed (e.g. refused the file after a crash).
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "run " << run << " ended with status " << status << " before the kill";
  }

  std::unique_ptr<TuningDatabase> db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  absl::Status integrity = db->CheckIntegrity();
  EXPECT_TRUE(integrity.ok()) << integrity;

  std::vector<std::string> committed = ReadLines(report);
  EXPECT_GT(committed.size(), static_cast<size_t>(kKills)) << "too few batches to test anything";
  for (const std::string& batch : committed) {
    absl::StatusOr<WorkloadStats> stats = db->StatsOf(batch);
    ASSERT_TRUE(stats.ok()) << "reported batch " << batch << " is missing: " << stats.status();
    EXPECT_EQ(stats->record_count, kBatchRows) << batch;
  }
  // Batches committed but killed before being reported are fine; half
  // batches are not.
  absl::StatusOr<std::vector<WorkloadStats>> all = db->AllWorkloadStats();
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_GE(all->size(), committed.size());
  for (const WorkloadStats& stats : *all) {
    EXPECT_EQ(stats.record_count, kBatchRows) << stats.workload_key;
  }
}

}  // namespace
}  // namespace tunefarm::db
