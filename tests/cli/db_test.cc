// `tunefarm db ...` run as a process against databases and JSON-lines files the test writes.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/file_read.h"
#include "compiler/codegen/target.h"
#include "db/record_id.h"
#include "db/tuning_database.h"
#include "db/tuning_record.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_process.h"

namespace tunefarm::cli::testing {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr char kWorkloadA[] = "v1-aaaa0000000000000000000000000000000000000000000000000000000000aa";
constexpr char kWorkloadB[] = "v1-bbbb0000000000000000000000000000000000000000000000000000000000bb";

std::string Canonical(const std::string& text) {
  absl::StatusOr<codegen::Target> target = codegen::Target::Parse(text);
  EXPECT_TRUE(target.ok()) << target.status();
  return target.ok() ? target->ToString() : text;
}

// The x86 target as records store it, and a different spelling of the same target.
const std::string& X86() {
  static const std::string target = Canonical("llvm -mtriple=x86_64-linux-gnu -mcpu=znver3");
  return target;
}
constexpr char kX86Spelling[] = "llvm -mcpu=znver3 -mtriple=x86_64-unknown-linux-gnu";
const std::string& Arm() {
  static const std::string target = Canonical("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72");
  return target;
}

db::TuningRecord MakeRecord(const std::string& workload, const std::string& target, int threads,
                            const std::string& schedule_hash, std::vector<double> costs,
                            db::ErrorKind error = db::ErrorKind::kNone) {
  db::TuningRecord r;
  r.record_id = *db::NewUuidV4();
  r.workload_key = workload;
  r.target = target;
  r.threads = threads;
  r.device_key = "board-1";
  r.schedule_json = R"({"steps":[["split",0,1,[4,8]]]})";
  r.schedule_hash = schedule_hash;
  r.costs_sec = std::move(costs);
  r.error_kind = error;
  r.error_code = error == db::ErrorKind::kCrash ? 11 : 0;
  r.error_message = error == db::ErrorKind::kNone ? "" : "segfault";
  r.max_abs_error = 1e-6;
  r.max_rel_error = 2e-6;
  r.created_unix_ms = 1'700'000'000'000;
  r.measured_unix_ms = 1'700'000'000'500;
  return r;
}

std::string Jsonl(const std::vector<db::TuningRecord>& records) {
  std::string text;
  for (const db::TuningRecord& r : records) text += db::RecordToJson(r).dump() + "\n";
  return text;
}

Json ParseJson(const CliResult& r) {
  Json json = Json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(json.is_discarded()) << "not JSON:\n" << r.out;
  return json;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

// A database filled through `tunefarm db import` with:
//   workload A, x86, 4 threads: schedules s1 (3 ms), s2 (1 ms, the best), s3 (2 ms) and s4, a
//     crash that timed faster (0.5 ms) and must never rank; s1 and s2 belong to job `job_id`;
//   workload A, x86, 1 thread: s1 (8 ms);
//   workload B, arm, 2 threads: s9 (4 ms).
class CliDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    job_id_ = *db::NewUuidV4();
    records_ = {MakeRecord(kWorkloadA, X86(), 4, "s1", {3e-3, 3e-3}),
                MakeRecord(kWorkloadA, X86(), 4, "s2", {0.9e-3, 1.1e-3}),
                MakeRecord(kWorkloadA, X86(), 4, "s3", {2e-3}),
                MakeRecord(kWorkloadA, X86(), 4, "s4", {0.5e-3}, db::ErrorKind::kCrash),
                MakeRecord(kWorkloadA, X86(), 1, "s1", {8e-3}),
                MakeRecord(kWorkloadB, Arm(), 2, "s9", {4e-3})};
    records_[0].job_id = job_id_;
    records_[1].job_id = job_id_;
    db_ = dir_.File("tune.db");
    jsonl_ = dir_.WriteFile("records.jsonl", Jsonl(records_));
  }

  void Import() {
    CliResult r = RunTunefarm({"db", "import", "--db", db_, jsonl_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  std::vector<std::string> Query(const std::string& action, int threads,
                                 const std::string& target = kX86Spelling) {
    return {"db", action, "--db", db_, "--workload", kWorkloadA, "--target", target,
            "--threads", std::to_string(threads)};
  }

  TempDir dir_;
  std::string job_id_;
  std::vector<db::TuningRecord> records_;
  std::string db_;
  std::string jsonl_;
};

TEST_F(CliDbTest, ReadingAMissingFileIsAnErrorNamingItAndCreatesNothing) {
  const std::vector<std::vector<std::string>> commands = {
      Query("best", 4),
      Query("top", 4),
      {"db", "stats", "--db", db_},
      {"db", "jobs", "--db", db_},
      {"db", "export", "--db", db_},
      {"db", "check", "--db", db_}};
  for (const std::vector<std::string>& args : commands) {
    CliResult r = RunTunefarm(args);
    EXPECT_EQ(r.exit_code, 1) << args[1];
    EXPECT_THAT(r.err, HasSubstr(db_ + ": no such database file")) << args[1];
    EXPECT_EQ(r.out, "") << args[1];
    EXPECT_FALSE(Exists(db_)) << args[1] << " created " << db_;
  }
}

// A 0-byte file is what a failed `touch` or copy leaves: reading it must not write a schema
// into it.
TEST_F(CliDbTest, ReadingAnEmptyFileChangesNothing) {
  const std::string empty = dir_.WriteFile("empty.db", "");
  const std::vector<std::vector<std::string>> commands = {
      {"db", "stats", "--db", empty}, {"db", "jobs", "--db", empty}, {"db", "export", "--db", empty},
      {"db", "check", "--db", empty}, {"db", "best", "--db", empty, "--workload", kWorkloadA, "--target", X86(),
                                       "--threads", "4"}};
  for (const std::vector<std::string>& args : commands) {
    CliResult r = RunTunefarm(args);
    EXPECT_EQ(r.exit_code, 1) << args[1];
    EXPECT_THAT(r.err, HasSubstr(empty + ": an empty file, not a tunefarm database")) << args[1];
    EXPECT_EQ(std::filesystem::file_size(empty), 0u) << args[1] << " wrote into the file";
    EXPECT_FALSE(Exists(empty + "-wal")) << args[1];
  }
}

TEST_F(CliDbTest, AFileThatIsNotATunefarmDatabaseIsRefused) {
  const std::string text = "name,cost\nconv,1.0\n";
  const std::string csv = dir_.WriteFile("notes.csv", text);
  for (const char* action : {"stats", "check"}) {
    CliResult r = RunTunefarm({"db", action, "--db", csv});
    EXPECT_EQ(r.exit_code, 1) << action;
    EXPECT_THAT(r.err, HasSubstr(csv + ": not a tunefarm database")) << r.err;
  }
  CliResult r = RunTunefarm({"db", "import", "--db", csv, jsonl_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("not a tunefarm database"));
  EXPECT_EQ(ReadWholeFile(csv, "csv").value_or(""), text) << "the file was modified";
}

TEST_F(CliDbTest, ImportCountsAndImportingTwiceAddsNothing) {
  CliResult first = RunTunefarm({"db", "import", "--db", db_, jsonl_});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(Exists(db_));
  EXPECT_EQ(first.out, jsonl_ + ": 6 records read: 6 inserted, 0 replaced, 0 kept existing, "
                                "0 duplicates\n");

  CliResult second = RunTunefarm({"db", "import", "--db", db_, "--json", jsonl_});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  Json json = ParseJson(second);
  EXPECT_EQ(json["lines"], 6);
  EXPECT_EQ(json["inserted"], 0);
  EXPECT_EQ(json["replaced"], 0);
  EXPECT_EQ(json["duplicates"], 6);
  EXPECT_EQ(json["source"], jsonl_);

  CliResult stats = RunTunefarm({"db", "stats", "--db", db_, "--json"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  Json workloads = ParseJson(stats)["workloads"];
  ASSERT_EQ(workloads.size(), 2u);
  EXPECT_EQ(workloads[0]["record_count"].get<int>() + workloads[1]["record_count"].get<int>(), 6);
}

TEST_F(CliDbTest, ImportOfAFasterMeasurementReplacesTheStoredOne) {
  Import();
  db::TuningRecord faster = MakeRecord(kWorkloadA, X86(), 4, "s3", {0.2e-3});
  const std::string more = dir_.WriteFile("more.jsonl", Jsonl({faster}));
  CliResult r = RunTunefarm({"db", "import", "--db", db_, "--json", more});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ParseJson(r)["replaced"], 1);

  r = RunTunefarm(Query("best", 4));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(faster.record_id));
}

TEST_F(CliDbTest, ImportReadsStdin) {
  CliResult r = RunTunefarm({"db", "import", "--db", db_, "-"}, {}, jsonl_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("<stdin>: 6 records read: 6 inserted"));
}

// /dev/zero has no newline: it once grew an import to 4 GB. A device is refused by name, and
// an endless line on stdin stops at the line limit.
TEST_F(CliDbTest, ImportRefusesDevicesAndEndlessLines) {
  CliResult device = RunTunefarm({"db", "import", "--db", db_, "/dev/zero"});
  EXPECT_EQ(device.exit_code, 1);
  EXPECT_THAT(device.err, HasSubstr("/dev/zero: not a regular file, not a JSON-lines file"));
  EXPECT_FALSE(Exists(db_));
  CliResult directory = RunTunefarm({"db", "import", "--db", db_, dir_.path()});
  EXPECT_EQ(directory.exit_code, 1);
  EXPECT_THAT(directory.err, HasSubstr("is a directory"));
  CliResult endless = RunTunefarm({"db", "import", "--db", db_, "-"}, {}, "/dev/zero");
  EXPECT_EQ(endless.exit_code, 1);
  EXPECT_THAT(endless.err, HasSubstr("<stdin>:1: a line longer than 16 MiB, not a record; nothing imported"));
}

TEST_F(CliDbTest, ABadLineImportsNothingAndIsNamed) {
  const std::string bad =
      dir_.WriteFile("bad.jsonl", Jsonl({records_[0]}) + "{\"record_id\": \"oops\"\n");
  CliResult r = RunTunefarm({"db", "import", "--db", db_, bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(bad + ":2:"));
  r = RunTunefarm({"db", "stats", "--db", db_, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ParseJson(r)["workloads"].empty()) << r.out;
}

// A record the database would store but nothing could use: a target for an architecture that
// does not exist, or a schedule that is not JSON. Both lines are named; nothing is imported.
TEST_F(CliDbTest, ImportRefusesUnusableTargetsAndSchedules) {
  db::TuningRecord bad_target = MakeRecord(kWorkloadA, "llvm -mtriple=pdp11-unknown-none", 4, "s7", {1e-12});
  db::TuningRecord bad_schedule = MakeRecord(kWorkloadA, X86(), 4, "s8", {1e-12});
  bad_schedule.schedule_json = "cost 1e-12, trust me";
  const std::string file = dir_.WriteFile("fake.jsonl", Jsonl({records_[0], bad_target, bad_schedule}));
  CliResult r = RunTunefarm({"db", "import", "--db", db_, file});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("2 bad lines, nothing imported: " + file + ":2: target 'llvm -mtriple=pdp11"));
  EXPECT_THAT(r.err, HasSubstr(file + ":3: the schedule is not JSON"));
  r = RunTunefarm({"db", "stats", "--db", db_, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ParseJson(r)["workloads"].empty()) << r.out;
}

TEST_F(CliDbTest, ImportOfAMissingFileNamesItAndCreatesNoDatabase) {
  const std::string missing = dir_.File("missing.jsonl");
  CliResult r = RunTunefarm({"db", "import", "--db", db_, missing});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot read " + missing));
  EXPECT_FALSE(Exists(db_));
}

TEST_F(CliDbTest, BestPicksTheFastestValidRecord) {
  Import();
  CliResult r = RunTunefarm([&] {
    auto args = Query("best", 4);
    args.push_back("--json");
    return args;
  }());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json json = ParseJson(r);
  EXPECT_EQ(json["workload_key"], kWorkloadA);
  EXPECT_EQ(json["target"], X86()) << "the --target spelling was not canonicalised";
  EXPECT_EQ(json["threads"], 4);
  EXPECT_EQ(json["record"]["record_id"], records_[1].record_id);
  EXPECT_EQ(json["record"]["schedule_hash"], "s2");
  EXPECT_DOUBLE_EQ(json["record"]["cost_sec"].get<double>(), 1e-3);
  EXPECT_EQ(json["record"]["job_id"], job_id_);

  r = RunTunefarm(Query("best", 4));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out)[0].rfind("FIELD", 0), 0u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("record_id      " + records_[1].record_id + "\n"));
  EXPECT_THAT(r.out, HasSubstr("cost           1.000 ms (median of"));
  EXPECT_THAT(r.out, HasSubstr("costs          900.0 us, 1.100 ms\n"));
}

TEST_F(CliDbTest, BestWithoutAValidRecordExitsOne) {
  Import();
  CliResult r = RunTunefarm(Query("best", 16));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("no valid record for workload " + std::string(kWorkloadA)));
  EXPECT_THAT(r.err, HasSubstr("threads 16"));
}

TEST_F(CliDbTest, TopListsValidRecordsFastestFirst) {
  Import();
  std::vector<std::string> args = Query("top", 4);
  args.insert(args.end(), {"-k", "2", "--json"});
  CliResult r = RunTunefarm(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json json = ParseJson(r);
  EXPECT_EQ(json["k"], 2);
  ASSERT_EQ(json["records"].size(), 2u);
  EXPECT_EQ(json["records"][0]["schedule_hash"], "s2");
  EXPECT_EQ(json["records"][1]["schedule_hash"], "s3");

  r = RunTunefarm(Query("top", 4));  // default k: every valid record, the crash left out
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_THAT(lines[0], HasSubstr("RANK"));
  EXPECT_THAT(lines[1], HasSubstr(records_[1].record_id));
  EXPECT_THAT(lines[2], HasSubstr(records_[2].record_id));
  EXPECT_THAT(lines[3], HasSubstr(records_[0].record_id));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr(records_[3].record_id)));
  // Aligned: every row's record id starts in the header's RECORD ID column.
  const size_t column = lines[0].find("RECORD ID");
  ASSERT_NE(column, std::string::npos);
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_TRUE(db::IsUuidText(lines[i].substr(column))) << lines[i];
  }

  r = RunTunefarm(Query("top", 4, Arm()));  // nothing on arm for workload A: an empty list
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 1u) << r.out;
}

TEST_F(CliDbTest, StatsPerWorkload) {
  Import();
  CliResult r = RunTunefarm({"db", "stats", "--db", db_, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json workloads = ParseJson(r)["workloads"];
  ASSERT_EQ(workloads.size(), 2u);
  EXPECT_EQ(workloads[0]["workload_key"], kWorkloadA);
  EXPECT_EQ(workloads[0]["record_count"], 5);
  EXPECT_EQ(workloads[0]["valid_count"], 4);
  EXPECT_DOUBLE_EQ(workloads[0]["best_cost_sec"].get<double>(), 1e-3);
  EXPECT_EQ(workloads[0]["target_count"], 1);
  EXPECT_EQ(workloads[1]["workload_key"], kWorkloadB);
  EXPECT_EQ(workloads[1]["record_count"], 1);

  r = RunTunefarm({"db", "stats", "--db", db_, "--workload", kWorkloadB});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].rfind("WORKLOAD", 0), 0u);
  EXPECT_EQ(lines[1], std::string(kWorkloadB) + "        1      1  4.000 ms        1");

  r = RunTunefarm({"db", "stats", "--db", db_, "--workload", "v1-unknown"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("v1-unknown"));
}

TEST_F(CliDbTest, JobsOfImportedRecordsAreListed) {
  Import();
  CliResult r = RunTunefarm({"db", "jobs", "--db", db_, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json jobs = ParseJson(r)["jobs"];
  ASSERT_EQ(jobs.size(), 1u) << r.out;
  EXPECT_EQ(jobs[0]["job_id"], job_id_);
  EXPECT_EQ(jobs[0]["state"], "done");
  EXPECT_TRUE(jobs[0]["spec"].is_object()) << jobs[0]["spec"];

  r = RunTunefarm({"db", "jobs", "--db", db_, "--state", "running", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ParseJson(r)["jobs"].empty());

  r = RunTunefarm({"db", "jobs", "--db", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].rfind("JOB ID", 0), 0u);
  EXPECT_THAT(lines[1], HasSubstr(job_id_ + "  done"));
}

TEST_F(CliDbTest, JobsShowStateAndProgress) {
  std::string running_id;
  {
    auto database = db::TuningDatabase::Open(db_);
    ASSERT_TRUE(database.ok()) << database.status();
    absl::StatusOr<db::Job> queued = (*database)->CreateJob(R"({"model":"resnet18"})", 100);
    absl::StatusOr<db::Job> running = (*database)->CreateJob(R"({"model":"bert"})", 64);
    ASSERT_TRUE(queued.ok() && running.ok());
    ASSERT_TRUE((*database)->SetJobState(running->job_id, db::JobState::kRunning).ok());
    ASSERT_TRUE((*database)->UpdateJobProgress(running->job_id, 10).ok());
    ASSERT_TRUE((*database)->ClaimJob(running->job_id, "tuner-a", 600'000).value_or(false));
    running_id = running->job_id;
    // Running in the database, but its tuner is gone: interrupted.
    absl::StatusOr<db::Job> orphan = (*database)->CreateJob(R"({"model":"vit"})", 8);
    ASSERT_TRUE(orphan.ok());
    ASSERT_TRUE((*database)->SetJobState(orphan->job_id, db::JobState::kRunning).ok());
  }
  CliResult r = RunTunefarm({"db", "jobs", "--db", db_, "--state=running", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json jobs = ParseJson(r)["jobs"];
  ASSERT_EQ(jobs.size(), 2u) << r.out;
  EXPECT_EQ(jobs[1]["state"], "interrupted");
  EXPECT_EQ(jobs[0]["job_id"], running_id);
  EXPECT_EQ(jobs[0]["state"], "running");
  EXPECT_EQ(jobs[0]["owner"], "tuner-a");
  EXPECT_EQ(jobs[0]["trials_done"], 10);
  EXPECT_EQ(jobs[0]["trials_total"], 64);
  EXPECT_EQ(jobs[0]["spec"]["model"], "bert");

  r = RunTunefarm({"db", "jobs", "--db", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("queued"));
  EXPECT_THAT(r.out, HasSubstr("interrupted"));
  EXPECT_THAT(r.out, HasSubstr(" 10/64 "));
}

TEST_F(CliDbTest, ExportWritesEveryRecordToStdoutOrAFile) {
  Import();
  CliResult r = RunTunefarm({"db", "export", "--db", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), records_.size());
  std::set<std::string> exported;
  for (const std::string& line : lines) {
    absl::StatusOr<db::TuningRecord> record = db::RecordFromJson(Json::parse(line));
    ASSERT_TRUE(record.ok()) << record.status();
    exported.insert(record->record_id);
  }
  std::set<std::string> imported;
  for (const db::TuningRecord& record : records_) imported.insert(record.record_id);
  EXPECT_EQ(exported, imported);

  const std::string file = dir_.File("out.jsonl");
  CliResult to_file = RunTunefarm({"db", "export", "--db", db_, "-o", file});
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "exported 6 records to " + file + "\n");
  EXPECT_EQ(ReadWholeFile(file, "export").value_or(""), r.out);

  // The export imports into a fresh database as the same records.
  const std::string copy = dir_.File("copy.db");
  CliResult again = RunTunefarm({"db", "import", "--db", copy, "--json", file});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(ParseJson(again)["inserted"], 6);
}

TEST_F(CliDbTest, CheckReportsAHealthyFile) {
  Import();
  CliResult r = RunTunefarm({"db", "check", "--db", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(db_ + ": ok"));
  EXPECT_THAT(r.out, HasSubstr("6 records"));
}

}  // namespace
}  // namespace tunefarm::cli::testing
