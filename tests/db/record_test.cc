// Records: writes, the uniqueness rule, best/top-k and stats.
#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <string>

#include "db/record_row.h"
#include "db/tuning_database.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/db/db_test_util.h"

namespace tunefarm::db {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeRecord;
using testing::TempDir;

constexpr char kX86[] = "llvm -mtriple=x86_64-linux-gnu -mcpu=znver3";
constexpr char kArm[] = "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72";

class DbRecords : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<TuningDatabase>> opened = TuningDatabase::Open(path_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    db_ = *std::move(opened);
  }

  WriteOutcome Add(const TuningRecord& record) {
    absl::StatusOr<WriteOutcome> outcome = db_->AddRecord(record);
    EXPECT_TRUE(outcome.ok()) << outcome.status();
    return outcome.value_or(WriteOutcome::kDuplicate);
  }

  std::vector<std::string> TopHashes(const std::string& workload, const char* target, int threads,
                                     int k) {
    absl::StatusOr<std::vector<TuningRecord>> top = db_->TopK(workload, target, threads, k);
    EXPECT_TRUE(top.ok()) << top.status();
    std::vector<std::string> hashes;
    for (const TuningRecord& r : top.value_or(std::vector<TuningRecord>{})) {
      hashes.push_back(r.schedule_hash);
    }
    return hashes;
  }

  int64_t Count() { return db_->RecordCount().value_or(-1); }

  TempDir dir_;
  std::string path_ = dir_.File("tunefarm.db");
  std::unique_ptr<TuningDatabase> db_;
};

TEST_F(DbRecords, BestAndTopKRankValidRecordsByCost) {
  Add(MakeRecord("conv", kX86, 8, "slow", {3e-3, 5e-3}));  // median 4e-3
  Add(MakeRecord("conv", kX86, 8, "fast", {1e-3, 3e-3}));  // median 2e-3
  Add(MakeRecord("conv", kX86, 8, "mid", {3e-3}));         // median 3e-3
  Add(MakeRecord("conv", kX86, 8, "wrong", {1e-4}, ErrorKind::kWrongResult));
  Add(MakeRecord("conv", kX86, 8, "crash", {}, ErrorKind::kCrash));
  Add(MakeRecord("conv", kX86, 4, "other-threads", {1e-5}));
  Add(MakeRecord("conv", kArm, 8, "other-target", {1e-5}));
  Add(MakeRecord("dense", kX86, 8, "other-workload", {1e-5}));

  absl::StatusOr<std::optional<TuningRecord>> best = db_->Best("conv", kX86, 8);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->schedule_hash, "fast");
  EXPECT_DOUBLE_EQ((*best)->Cost(), 2e-3);

  EXPECT_THAT(TopHashes("conv", kX86, 8, 2), ElementsAre("fast", "mid"));
  EXPECT_THAT(TopHashes("conv", kX86, 8, 10), ElementsAre("fast", "mid", "slow"));
  EXPECT_THAT(TopHashes("conv", kX86, 4, 10), ElementsAre("other-threads"));
  EXPECT_THAT(TopHashes("conv", kX86, 8, 0), ElementsAre());

  absl::StatusOr<std::optional<TuningRecord>> none = db_->Best("conv", kX86, 16);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  none = db_->Best("never-seen", kX86, 8);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(TuningRecordCost, IsTheMedianOfTheRepeatsAndSpreadTheirRange) {
  TuningRecord r = MakeRecord("conv", kX86, 8, "h", {5e-3, 1e-3, 2e-3});
  EXPECT_DOUBLE_EQ(r.Cost(), 2e-3);
  EXPECT_DOUBLE_EQ(r.Spread(), (5e-3 - 1e-3) / 2e-3);
  r.costs_sec = {4e-3, 1e-3, 2e-3, 9e-3};  // even: the mean of the middle two
  EXPECT_DOUBLE_EQ(r.Cost(), 3e-3);
  r.costs_sec = {7e-3};
  EXPECT_DOUBLE_EQ(r.Cost(), 7e-3);
  EXPECT_EQ(r.Spread(), 0.0);
  r.costs_sec = {};
  EXPECT_TRUE(std::isinf(r.Cost()));
  EXPECT_EQ(r.Spread(), 0.0);
}

// One repeat slowed by another process (the host's other work) does not decide the rank.
TEST_F(DbRecords, ARepeatDisturbedOnceDoesNotDemoteACandidate) {
  Add(MakeRecord("conv", kX86, 8, "steady", {2e-3, 2e-3, 2e-3}));      // median 2e-3, mean 2e-3
  Add(MakeRecord("conv", kX86, 8, "disturbed", {1e-3, 1e-3, 9e-3}));   // median 1e-3, mean 3.7e-3
  EXPECT_THAT(TopHashes("conv", kX86, 8, 10), ElementsAre("disturbed", "steady"));
  absl::StatusOr<std::optional<TuningRecord>> best = db_->Best("conv", kX86, 8);
  ASSERT_TRUE(best.ok() && best->has_value());
  EXPECT_EQ((*best)->schedule_hash, "disturbed");
  // Measured again with a lower mean (2.5 ms) but a higher median: the stored one stays.
  Add(MakeRecord("conv", kX86, 8, "disturbed", {2.5e-3, 2.5e-3, 2.5e-3}));
  best = db_->Best("conv", kX86, 8);
  ASSERT_TRUE(best.ok() && best->has_value());
  EXPECT_EQ((*best)->schedule_hash, "disturbed");
  EXPECT_DOUBLE_EQ((*best)->Cost(), 1e-3);
}

TEST_F(DbRecords, MeasuredHashesAndRecordsOfTargetSelectByTargetAndThreads) {
  Add(MakeRecord("conv", kX86, 8, "fast", {1e-3}));
  Add(MakeRecord("conv", kX86, 8, "wrong", {1e-4}, ErrorKind::kWrongResult));
  Add(MakeRecord("conv", kX86, 4, "other-threads", {1e-5}));
  Add(MakeRecord("conv", kArm, 8, "other-target", {1e-5}));
  Add(MakeRecord("dense", kX86, 8, "dense-one", {1e-5}));

  absl::StatusOr<std::vector<std::string>> hashes = db_->MeasuredHashes("conv", kX86, 8);
  ASSERT_TRUE(hashes.ok()) << hashes.status();
  EXPECT_THAT(*hashes, ::testing::UnorderedElementsAre("fast", "wrong"));  // invalid ones too
  hashes = db_->MeasuredHashes("never-seen", kX86, 8);
  ASSERT_TRUE(hashes.ok());
  EXPECT_TRUE(hashes->empty());

  absl::StatusOr<std::vector<TuningRecord>> records = db_->RecordsOfTarget(kX86, 8, 10);
  ASSERT_TRUE(records.ok()) << records.status();
  std::vector<std::string> got;
  for (const TuningRecord& r : *records) got.push_back(r.schedule_hash);
  EXPECT_THAT(got, ElementsAre("dense-one", "wrong", "fast"));  // newest first, any workload
  records = db_->RecordsOfTarget(kX86, 8, 1);
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->size(), 1u);
}

TEST_F(DbRecords, StoresEveryFieldExactly) {
  TuningRecord record = MakeRecord("wl", kX86, 2, "h", {1.0 / 3.0, 2.5e-7, 1e-300});
  record.max_abs_error = std::numeric_limits<double>::quiet_NaN();  // not checked
  record.error_message = "line 1\nline \"2\"";
  record.device_key = "rk3399-01";
  absl::StatusOr<Job> job = db_->CreateJob(R"({"tasks":1})", 10);
  ASSERT_TRUE(job.ok()) << job.status();
  record.job_id = job->job_id;
  ASSERT_EQ(Add(record), WriteOutcome::kInserted);

  absl::StatusOr<std::optional<TuningRecord>> found = db_->FindRecord(record.record_id);
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ(**found, record);
  EXPECT_TRUE(std::isnan((*found)->max_abs_error));
}

TEST_F(DbRecords, SameScheduleKeepsTheBetterMeasurement) {
  TuningRecord first = MakeRecord("wl", kX86, 4, "h", {2e-3});
  ASSERT_EQ(Add(first), WriteOutcome::kInserted);

  TuningRecord slower = MakeRecord("wl", kX86, 4, "h", {3e-3});
  EXPECT_EQ(Add(slower), WriteOutcome::kKeptExisting);
  TuningRecord equal = MakeRecord("wl", kX86, 4, "h", {2e-3});
  EXPECT_EQ(Add(equal), WriteOutcome::kKeptExisting);
  TuningRecord broken = MakeRecord("wl", kX86, 4, "h", {1e-9}, ErrorKind::kWrongResult);
  EXPECT_EQ(Add(broken), WriteOutcome::kKeptExisting);

  TuningRecord faster = MakeRecord("wl", kX86, 4, "h", {1e-3});
  EXPECT_EQ(Add(faster), WriteOutcome::kReplaced);
  EXPECT_EQ(Count(), 1);
  absl::StatusOr<std::optional<TuningRecord>> best = db_->Best("wl", kX86, 4);
  ASSERT_TRUE(best.ok() && best->has_value());
  EXPECT_EQ((*best)->record_id, faster.record_id);

  // The stored record id, and any id seen before, adds nothing.
  EXPECT_EQ(Add(faster), WriteOutcome::kDuplicate);
  EXPECT_EQ(Add(slower), WriteOutcome::kKeptExisting);
  EXPECT_EQ(Count(), 1);
  // The same schedule under another thread count is another record.
  EXPECT_EQ(Add(MakeRecord("wl", kX86, 8, "h", {5e-3})), WriteOutcome::kInserted);
  EXPECT_EQ(Count(), 2);
}

TEST_F(DbRecords, ValidMeasurementReplacesFailedOne) {
  TuningRecord timeout = MakeRecord("wl", kX86, 1, "h", {}, ErrorKind::kTimeout);
  ASSERT_EQ(Add(timeout), WriteOutcome::kInserted);
  absl::StatusOr<std::optional<TuningRecord>> best = db_->Best("wl", kX86, 1);
  ASSERT_TRUE(best.ok());
  EXPECT_FALSE(best->has_value());

  TuningRecord valid = MakeRecord("wl", kX86, 1, "h", {9.0});
  EXPECT_EQ(Add(valid), WriteOutcome::kReplaced);
  best = db_->Best("wl", kX86, 1);
  ASSERT_TRUE(best.ok() && best->has_value());
  EXPECT_EQ((*best)->record_id, valid.record_id);
}

TEST_F(DbRecords, RefusesInvalidRecordsAndStoresNothing) {
  TuningRecord no_threads = MakeRecord("wl", kX86, 0, "h", {1e-3});
  absl::StatusOr<WriteOutcome> outcome = db_->AddRecord(no_threads);
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(outcome.status().message(), HasSubstr("threads must be >= 1"));
  EXPECT_THAT(outcome.status().message(), HasSubstr(path_));

  TuningRecord bad_id = MakeRecord("wl", kX86, 1, "h", {1e-3});
  bad_id.record_id = "not-a-uuid";
  EXPECT_THAT(db_->AddRecord(bad_id).status().message(), HasSubstr("record_id is not a UUID"));

  TuningRecord no_costs = MakeRecord("wl", kX86, 1, "h", {});
  EXPECT_FALSE(db_->AddRecord(no_costs).ok());

  TuningRecord orphan = MakeRecord("wl", kX86, 1, "h", {1e-3});
  orphan.job_id = "00000000-0000-4000-8000-000000000000";
  outcome = db_->AddRecord(orphan);
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(outcome.status().message(), HasSubstr("unknown job " + orphan.job_id));
  EXPECT_EQ(Count(), 0);
}

TEST_F(DbRecords, AddRecordsIsAllOrNothing) {
  std::vector<TuningRecord> batch = {MakeRecord("wl", kX86, 1, "a", {1e-3}),
                                     MakeRecord("wl", kX86, 1, "b", {2e-3}),
                                     MakeRecord("wl", kX86, -3, "c", {3e-3})};
  absl::StatusOr<WriteCounts> counts = db_->AddRecords(batch);
  ASSERT_FALSE(counts.ok());
  EXPECT_THAT(counts.status().message(), HasSubstr("record 3 of 3"));
  EXPECT_EQ(Count(), 0);

  batch.pop_back();
  batch.push_back(MakeRecord("wl", kX86, 1, "a", {5e-3}));  // loses to the first "a"
  counts = db_->AddRecords(batch);
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->inserted, 2);
  EXPECT_EQ(counts->kept_existing, 1);
  EXPECT_EQ(Count(), 2);
}

TEST_F(DbRecords, StatsPerWorkload) {
  Add(MakeRecord("conv", kX86, 8, "a", {4e-3}));
  Add(MakeRecord("conv", kX86, 8, "b", {2e-3}));
  Add(MakeRecord("conv", kArm, 4, "a", {9e-3}));
  Add(MakeRecord("conv", kX86, 8, "c", {1e-9}, ErrorKind::kWrongResult));
  Add(MakeRecord("dense", kX86, 1, "a", {}, ErrorKind::kBuild));
  ASSERT_TRUE(db_->RegisterWorkload("idle", "dag text").ok());

  absl::StatusOr<WorkloadStats> conv = db_->StatsOf("conv");
  ASSERT_TRUE(conv.ok()) << conv.status();
  EXPECT_EQ(conv->record_count, 4);
  EXPECT_EQ(conv->valid_count, 3);
  ASSERT_TRUE(conv->best_cost.has_value());
  EXPECT_DOUBLE_EQ(*conv->best_cost, 2e-3);
  EXPECT_EQ(conv->target_count, 2);

  absl::StatusOr<std::vector<WorkloadStats>> all = db_->AllWorkloadStats();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].workload_key, "conv");
  EXPECT_EQ((*all)[1].workload_key, "dense");
  EXPECT_EQ((*all)[1].record_count, 1);
  EXPECT_EQ((*all)[1].valid_count, 0);
  EXPECT_FALSE((*all)[1].best_cost.has_value());
  EXPECT_EQ((*all)[2].workload_key, "idle");
  EXPECT_EQ((*all)[2].record_count, 0);
  EXPECT_EQ((*all)[2].target_count, 0);

  EXPECT_EQ(db_->StatsOf("never-seen").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(DbRecords, WorkloadDagTextIsRegisteredOnce) {
  Add(MakeRecord("wl", kX86, 1, "a", {1e-3}));
  EXPECT_EQ(db_->WorkloadDagText("wl").value_or("?"), "");
  ASSERT_TRUE(db_->RegisterWorkload("wl", "placeholder(A, [4, 4])").ok());
  ASSERT_TRUE(db_->RegisterWorkload("wl", "placeholder(A, [4, 4])").ok());
  EXPECT_EQ(db_->WorkloadDagText("wl").value_or("?"), "placeholder(A, [4, 4])");
  absl::Status clash = db_->RegisterWorkload("wl", "placeholder(A, [8, 8])");
  EXPECT_EQ(clash.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(db_->WorkloadDagText("missing").status().code(), absl::StatusCode::kNotFound);
}

// best() must stay an index seek: a plan that scans records would not hold
// up at a million rows (bench/db/best_query_bench.cc measures it).
TEST_F(DbRecords, BestQueryUsesThePartialIndex) {
  Add(MakeRecord("wl", kX86, 1, "a", {1e-3}));
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &raw), SQLITE_OK);
  std::string sql = "EXPLAIN QUERY PLAN " + internal::BestQuery(TuningDatabase::SchemaVersion());
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
      << sqlite3_errmsg(raw);
  std::string plan;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    plan += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3));
    plan += "\n";
  }
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
  EXPECT_THAT(plan, HasSubstr("SEARCH r USING INDEX records_best")) << plan;
  EXPECT_THAT(plan, ::testing::Not(HasSubstr("SCAN r"))) << plan;
  EXPECT_THAT(plan, ::testing::Not(HasSubstr("TEMP B-TREE"))) << plan;
}

}  // namespace
}  // namespace tunefarm::db
