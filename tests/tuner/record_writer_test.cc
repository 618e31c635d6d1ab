// The tuner's grouped record writes (tuner/record_writer.h) against a real database.
#include "tuner/record_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "common/strings.h"
#include "db/record_id.h"
#include "db/tuning_database.h"
#include "tests/common/test_temp_dir.h"

namespace tunefarm::tuner {
namespace {

db::TuningRecord Record(int i, const std::string& job_id) {
  db::TuningRecord r;
  r.record_id = *db::NewUuidV4();
  r.workload_key = "wk";
  r.target = "llvm -mtriple=x86_64-linux-gnu -mcpu=znver4";
  r.threads = 1;
  r.schedule_json = StrCat("{\"i\":", i, "}");
  r.schedule_hash = StrCat("hash", i);
  r.costs_sec = {1e-3 * (i + 1)};
  r.job_id = job_id;
  r.created_unix_ms = r.measured_unix_ms = 1;
  return r;
}

class RecordWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db::OpenOptions open;
    open.create_if_missing = true;
    auto opened = db::TuningDatabase::Open(dir_.path() + "/t.db", open);
    ASSERT_TRUE(opened.ok()) << opened.status();
    db_ = std::move(*opened);
    ASSERT_TRUE(db_->RegisterWorkload("wk", "dag").ok());
    auto job = db_->CreateJob("{}", 10);
    ASSERT_TRUE(job.ok()) << job.status();
    job_id_ = job->job_id;
  }
  int64_t Stored() { return *db_->RecordCount(); }

  ::tunefarm::testing::TempDir dir_;
  std::unique_ptr<db::TuningDatabase> db_;
  std::string job_id_;
};

TEST_F(RecordWriterTest, AGroupIsDueWhenItHoldsAFarmCallsRecordsAndIsWrittenTogether) {
  RecordWriter writer(db_.get(), std::chrono::hours(1));
  EXPECT_FALSE(writer.Due(3));  // nothing queued
  writer.Add(Record(0, job_id_));
  writer.Add(Record(1, job_id_));
  EXPECT_FALSE(writer.Due(3));
  EXPECT_EQ(Stored(), 0);  // queued records are not in the database yet
  writer.Add(Record(2, job_id_));
  EXPECT_TRUE(writer.Due(3));
  auto written = writer.Flush();
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, 3u);
  EXPECT_EQ(writer.pending(), 0u);
  EXPECT_EQ(Stored(), 3);
  auto flushed_again = writer.Flush();  // an empty queue writes nothing
  ASSERT_TRUE(flushed_again.ok());
  EXPECT_EQ(*flushed_again, 0u);
  EXPECT_EQ(Stored(), 3);
}

TEST_F(RecordWriterTest, AGroupIsDueOnceItsOldestRecordHasWaitedTooLong) {
  RecordWriter writer(db_.get(), std::chrono::milliseconds(0));
  writer.Add(Record(0, job_id_));
  EXPECT_TRUE(writer.Due(100));
}

TEST_F(RecordWriterTest, AFailedWriteStoresNoneOfTheGroupAndKeepsItQueued) {
  RecordWriter writer(db_.get(), std::chrono::hours(1));
  writer.Add(Record(0, job_id_));
  writer.Add(Record(1, "no-such-job"));  // refused: a record's job must exist
  auto written = writer.Flush();
  ASSERT_FALSE(written.ok());
  EXPECT_NE(std::string(written.status().message()).find("no-such-job"), std::string::npos) << written.status();
  EXPECT_EQ(Stored(), 0);  // one transaction: the good record was rolled back with the bad
  EXPECT_EQ(writer.pending(), 2u);
}

}  // namespace
}  // namespace tunefarm::tuner
