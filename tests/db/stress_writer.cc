// tunefarm_db_stress_writer: a writer process for the multi-process db tests.
//
//   --db PATH --report PATH --writer NAME --mode single --count N
//       N single-row transactions (AddRecord) under workload "single-NAME";
//       appends "errors=E" to the report at the end; exit 1 if E > 0.
//   --db PATH --report PATH --writer NAME --mode batches --count N --batch-size B
//       up to N transactions of B rows each, batch i under workload "NAME-i";
//       after each COMMIT returns, appends "NAME-i" to the report.
//
// The report is appended with one write() per line, so a SIGKILL never leaves
// half a line, and a line is only written once its batch is committed.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "common/command_flags.h"
#include "db/record_id.h"
#include "db/tuning_database.h"

namespace {

using tunefarm::db::TuningDatabase;
using tunefarm::db::TuningRecord;

struct Args {
  std::string db, report, writer, mode;
  int count = 0;
  int batch_size = 1;
};

const tunefarm::CommandSpec kSpec = {
    "tunefarm_db_stress_writer",
    "a writer process for the multi-process db tests",
    {{"db", 0, "PATH", "the database", true},
     {"report", 0, "PATH", "the file committed work is appended to", true},
     {"writer", 0, "NAME", "this writer's name", true},
     {"mode", 0, "MODE", "single or batches", true},
     {"count", 0, "N", "transactions", true},
     {"batch-size", 0, "B", "rows per transaction in batches mode (default 1)"}},
    {}};

absl::Status ParseArgs(int argc, char** argv, Args& args) {
  absl::StatusOr<tunefarm::ParsedFlags> flags = tunefarm::ParsedFlags::Parse(kSpec, argc, argv);
  if (!flags.ok()) return flags.status();
  args.db = flags->Get("db");
  args.report = flags->Get("report");
  args.writer = flags->Get("writer");
  args.mode = flags->Get("mode");
  absl::StatusOr<int64_t> count = flags->GetInt("count", 0, 1, 1 << 30);
  if (!count.ok()) return count.status();
  absl::StatusOr<int64_t> batch_size = flags->GetInt("batch-size", 1, 1, 1 << 20);
  if (!batch_size.ok()) return batch_size.status();
  args.count = static_cast<int>(*count);
  args.batch_size = static_cast<int>(*batch_size);
  if (args.mode != "single" && args.mode != "batches") return absl::InvalidArgumentError("--mode: single or batches");
  return absl::OkStatus();
}

TuningRecord Record(const std::string& workload, int row) {
  TuningRecord r;
  r.record_id = *tunefarm::db::NewUuidV4();
  r.workload_key = workload;
  r.target = "llvm -mtriple=x86_64-linux-gnu -mcpu=generic";
  r.threads = 1;
  r.device_key = "stress";
  r.schedule_hash = "row-" + std::to_string(row);
  r.schedule_json = R"({"row":)" + std::to_string(row) + "}";
  r.costs_sec = {1e-3 + row * 1e-6, 1.1e-3};
  return r;
}

bool AppendLine(int fd, const std::string& text) {
  std::string line = text + "\n";
  return write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (absl::Status parsed = ParseArgs(argc, argv, args); !parsed.ok()) {
    std::cerr << parsed.message() << "\n" << tunefarm::Usage(kSpec);
    return 2;
  }
  int report = open(args.report.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (report < 0) {
    std::cerr << "cannot open " << args.report << ": " << std::strerror(errno) << "\n";
    return 2;
  }
  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(args.db);
  if (!db.ok()) {
    std::cerr << db.status() << "\n";
    return 1;
  }

  if (args.mode == "single") {
    int errors = 0;
    std::string workload = "single-" + args.writer;
    for (int i = 0; i < args.count; ++i) {
      absl::StatusOr<tunefarm::db::WriteOutcome> outcome = (*db)->AddRecord(Record(workload, i));
      if (!outcome.ok() || *outcome != tunefarm::db::WriteOutcome::kInserted) {
        ++errors;
        std::cerr << "row " << i << ": " << outcome.status() << "\n";
      }
    }
    AppendLine(report, "errors=" + std::to_string(errors));
    return errors == 0 ? 0 : 1;
  }

  for (int batch = 0; batch < args.count; ++batch) {
    std::string workload = args.writer + "-" + std::to_string(batch);
    std::vector<TuningRecord> rows;
    for (int row = 0; row < args.batch_size; ++row) rows.push_back(Record(workload, row));
    absl::StatusOr<tunefarm::db::WriteCounts> counts = (*db)->AddRecords(rows);
    if (!counts.ok()) {
      std::cerr << "batch " << workload << ": " << counts.status() << "\n";
      return 1;
    }
    if (!AppendLine(report, workload)) return 1;
  }
  return 0;
}
