// Export/import of records as JSON lines, one RecordToJson object per line.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <string>

#include "absl/strings/ascii.h"
#include "db/record_row.h"
#include "db/sqlite_handle.h"
#include "db/text.h"
#include "db/tuning_database.h"
#include "nlohmann/json.hpp"

namespace tunefarm::db {
namespace {

using internal::StatementLease;
using internal::WriteTransaction;

// Parses one line; exceptions stay inside this file.
absl::StatusOr<TuningRecord> ParseLine(const std::string& line) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(internal::Cat("malformed JSON: ", e.what()));
  }
  absl::StatusOr<TuningRecord> record = RecordFromJson(json);
  if (!record.ok()) return record.status();
  if (absl::Status status = ValidateRecord(*record); !status.ok()) return status;
  return record;
}

}  // namespace

absl::StatusOr<int64_t> TuningDatabase::ExportJsonl(std::ostream& out) {
  absl::StatusOr<StatementLease> query =
      connection_->Prepare(internal::Cat(internal::kSelectRecord, " ORDER BY r.id"));
  if (!query.ok()) return query.status();
  int64_t count = 0;
  while (true) {
    absl::StatusOr<bool> row = (*query)->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    absl::StatusOr<TuningRecord> record = internal::ReadRecordRow(**query, *connection_);
    if (!record.ok()) return record.status();
    out << RecordToJson(*record).dump() << '\n';
    if (!out) return absl::DataLossError("export: writing the output stream failed");
    ++count;
  }
  out.flush();
  if (!out) return absl::DataLossError("export: writing the output stream failed");
  return count;
}

absl::StatusOr<int64_t> TuningDatabase::ExportJsonl(const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::UnavailableError(internal::Cat("cannot write ", path, ": ", std::strerror(errno)));
  }
  absl::StatusOr<int64_t> count = ExportJsonl(out);
  if (!count.ok()) return internal::WithContext(count.status(), path);
  out.close();
  if (!out) return absl::DataLossError(internal::Cat("cannot write ", path, ": close failed"));
  return count;
}

absl::StatusOr<ImportStats> TuningDatabase::ImportJsonl(std::istream& in,
                                                        std::string_view source_name) {
  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(*connection_);
  if (!transaction.ok()) return transaction.status();
  ImportStats stats;
  std::string line;
  for (int64_t line_number = 1; std::getline(in, line); ++line_number) {
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    std::string where = internal::Cat(source_name, ":", line_number);
    absl::StatusOr<TuningRecord> record = ParseLine(line);
    if (!record.ok()) return internal::WithContext(record.status(), where);
    absl::StatusOr<WriteOutcome> outcome = WriteRecord(*record, UnknownJob::kCreateStub);
    if (!outcome.ok()) return internal::WithContext(outcome.status(), where);
    ++stats.lines;
    stats.writes.Count(*outcome);
  }
  if (in.bad()) {
    return absl::DataLossError(internal::Cat(source_name, ": read error; nothing imported"));
  }
  if (absl::Status status = transaction->Commit(); !status.ok()) return status;
  return stats;
}

absl::StatusOr<ImportStats> TuningDatabase::ImportJsonl(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(internal::Cat("cannot open ", path, ": ", std::strerror(errno)));
  }
  return ImportJsonl(in, path);
}

}  // namespace tunefarm::db
