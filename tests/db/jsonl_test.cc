// JSON lines: round trip, idempotent import, and errors that name the line.
#include <fstream>
#include <sstream>
#include <string>

#include "db/tuning_database.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/db/db_test_util.h"

namespace tunefarm::db {
namespace {

using ::testing::HasSubstr;
using testing::MakeRecord;
using testing::TempDir;

class DbJsonl : public ::testing::Test {
 protected:
  std::unique_ptr<TuningDatabase> Open(const std::string& name) {
    absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(dir_.File(name));
    EXPECT_TRUE(db.ok()) << db.status();
    return db.ok() ? *std::move(db) : nullptr;
  }

  TempDir dir_;
};

TEST_F(DbJsonl, RoundTripKeepsEveryRecordAndDoubleImportAddsNothing) {
  std::unique_ptr<TuningDatabase> source = Open("source.db");
  ASSERT_NE(source, nullptr);
  absl::StatusOr<Job> job = source->CreateJob("{}", 5);
  ASSERT_TRUE(job.ok());
  std::vector<TuningRecord> records;
  for (int i = 0; i < 20; ++i) {
    TuningRecord r = MakeRecord("wl" + std::to_string(i % 3), "llvm -mcpu=znver3", 1 + i % 2,
                                "h" + std::to_string(i), {1e-3 / (i + 1), 2e-3});
    if (i % 5 == 0) r.job_id = job->job_id;
    if (i % 7 == 0) r.error_kind = ErrorKind::kTimeout;
    records.push_back(r);
  }
  ASSERT_TRUE(source->AddRecords(records).ok());
  std::string file = dir_.File("records.jsonl");
  absl::StatusOr<int64_t> exported = source->ExportJsonl(file);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(*exported, 20);

  std::unique_ptr<TuningDatabase> copy = Open("copy.db");
  ASSERT_NE(copy, nullptr);
  absl::StatusOr<ImportStats> first = copy->ImportJsonl(file);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->lines, 20);
  EXPECT_EQ(first->writes.inserted, 20);
  for (const TuningRecord& r : records) {
    absl::StatusOr<std::optional<TuningRecord>> found = copy->FindRecord(r.record_id);
    ASSERT_TRUE(found.ok() && found->has_value()) << r.record_id;
    EXPECT_EQ(**found, r);
  }
  // The job came along as a stub, so its records stay findable by job.
  EXPECT_EQ(copy->RecordsOfJob(job->job_id)->size(), 4u);
  EXPECT_EQ(copy->GetJob(job->job_id)->state, JobState::kDone);

  absl::StatusOr<ImportStats> second = copy->ImportJsonl(file);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->writes.changed(), 0);
  EXPECT_EQ(second->writes.duplicates, 20);
  EXPECT_EQ(*copy->RecordCount(), 20);

  // Export of the copy is the same text: nothing was lost or reordered.
  std::ostringstream a, b;
  ASSERT_TRUE(source->ExportJsonl(a).ok());
  ASSERT_TRUE(copy->ExportJsonl(b).ok());
  EXPECT_EQ(a.str(), b.str());
}

TEST_F(DbJsonl, DoubleImportOfConflictingMeasurementsAddsNothing) {
  std::unique_ptr<TuningDatabase> db = Open("tunefarm.db");
  ASSERT_NE(db, nullptr);
  TuningRecord slow = MakeRecord("wl", "t", 1, "same", {5e-3});
  TuningRecord fast = MakeRecord("wl", "t", 1, "same", {1e-3});
  TuningRecord broken = MakeRecord("wl", "t", 1, "same", {1e-6}, ErrorKind::kWrongResult);
  std::string text = RecordToJson(slow).dump() + "\n" + RecordToJson(fast).dump() + "\n" +
                     RecordToJson(broken).dump() + "\n";

  std::istringstream once(text);
  absl::StatusOr<ImportStats> first = db->ImportJsonl(once, "mixed.jsonl");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->writes.inserted, 1);
  EXPECT_EQ(first->writes.replaced, 1);
  EXPECT_EQ(first->writes.kept_existing, 1);

  std::istringstream twice(text);
  absl::StatusOr<ImportStats> second = db->ImportJsonl(twice, "mixed.jsonl");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->writes.changed(), 0);
  EXPECT_EQ(*db->RecordCount(), 1);
  EXPECT_EQ((*db->Best("wl", "t", 1))->record_id, fast.record_id);
}

TEST_F(DbJsonl, MalformedLineNamesTheLineAndImportsNothing) {
  std::unique_ptr<TuningDatabase> db = Open("tunefarm.db");
  ASSERT_NE(db, nullptr);
  std::string good = RecordToJson(MakeRecord("wl", "t", 1, "a", {1e-3})).dump();
  std::istringstream bad_json(good + "\n\n{\"record_id\": \n");
  absl::StatusOr<ImportStats> stats = db->ImportJsonl(bad_json, "dump.jsonl");
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stats.status().message(), HasSubstr("dump.jsonl:3: malformed JSON"));
  EXPECT_EQ(*db->RecordCount(), 0);

  nlohmann::json missing = RecordToJson(MakeRecord("wl", "t", 1, "b", {1e-3}));
  missing.erase("threads");
  std::istringstream missing_field(good + "\n" + missing.dump() + "\n");
  stats = db->ImportJsonl(missing_field, "dump.jsonl");
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr("dump.jsonl:2: missing field 'threads'"));

  nlohmann::json wrong_kind = RecordToJson(MakeRecord("wl", "t", 1, "c", {1e-3}));
  wrong_kind["error_kind"] = "exploded";
  std::istringstream bad_kind(wrong_kind.dump() + "\n");
  stats = db->ImportJsonl(bad_kind, "dump.jsonl");
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr("dump.jsonl:1: unknown error kind 'exploded'"));
  EXPECT_EQ(*db->RecordCount(), 0);

  absl::StatusOr<ImportStats> absent = db->ImportJsonl(dir_.File("absent.jsonl"));
  EXPECT_THAT(absent.status().message(), HasSubstr("cannot open " + dir_.File("absent.jsonl")));
}

// Every bad line is named in one pass, and a caller's check (the CLI replays schedules) vetoes
// records the database itself would accept.
TEST_F(DbJsonl, EveryBadLineIsListedAndTheCallersCheckApplies) {
  std::unique_ptr<TuningDatabase> db = Open("tunefarm.db");
  ASSERT_NE(db, nullptr);
  const std::string good = RecordToJson(MakeRecord("wl", "t", 1, "a", {1e-3})).dump();
  const std::string fake = RecordToJson(MakeRecord("wl", "t", 1, "b", {1e-12})).dump();
  std::istringstream in(good + "\n{\n" + fake + "\n[]\n");
  auto no_fakes = [](const TuningRecord& r) {
    return r.Cost() < 1e-9 ? absl::InvalidArgumentError("implausibly fast") : absl::OkStatus();
  };
  absl::StatusOr<ImportStats> stats = db->ImportJsonl(in, "dump.jsonl", no_fakes);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr("3 bad lines, nothing imported: dump.jsonl:2: malformed JSON"));
  EXPECT_THAT(stats.status().message(), HasSubstr("dump.jsonl:3: implausibly fast"));
  EXPECT_THAT(stats.status().message(), HasSubstr("dump.jsonl:4: "));
  EXPECT_EQ(*db->RecordCount(), 0);
}

}  // namespace
}  // namespace tunefarm::db
