// Export/import of records as JSON lines, one RecordToJson object per line.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

// A record's line is a few KB; a line this long means the input is not records at all (e.g.
// /dev/zero, which has no newline and once grew an import to 4 GB).
constexpr size_t kMaxLineBytes = size_t{16} << 20;

enum class LineRead { kLine, kEnd, kTooLong };

// std::getline without its unbounded growth.
LineRead ReadBoundedLine(std::istream& in, std::string* line) {
  line->clear();
  std::streambuf* buffer = in.rdbuf();
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return line->empty() ? LineRead::kEnd : LineRead::kLine;
    }
    if (c == '\n') return LineRead::kLine;
    if (line->size() >= kMaxLineBytes) return LineRead::kTooLong;
    line->push_back(static_cast<char>(c));
  }
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

absl::StatusOr<ImportStats> TuningDatabase::ImportJsonl(std::istream& in, std::string_view source_name,
                                                        const RecordCheck& check) {
  absl::StatusOr<WriteTransaction> transaction = WriteTransaction::Begin(*connection_);
  if (!transaction.ok()) return transaction.status();
  ImportStats stats;
  std::string line;
  // Every bad line is found, not just the first, so one pass fixes the file; nothing is
  // written after the first (the transaction is dropped anyway).
  std::vector<std::string> bad_lines;
  int64_t bad_count = 0;
  auto bad = [&](const std::string& where, const absl::Status& status) {
    if (++bad_count <= kMaxReportedBadLines) bad_lines.push_back(internal::Cat(where, ": ", status.message()));
  };
  for (int64_t line_number = 1;; ++line_number) {
    const LineRead read = ReadBoundedLine(in, &line);
    if (read == LineRead::kEnd) break;
    std::string where = internal::Cat(source_name, ":", line_number);
    if (read == LineRead::kTooLong) {
      return absl::InvalidArgumentError(internal::Cat(where, ": a line longer than ", kMaxLineBytes >> 20,
                                                      " MiB, not a record; nothing imported"));
    }
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    absl::StatusOr<TuningRecord> record = ParseLine(line);
    if (record.ok() && check) {
      if (absl::Status vetted = check(*record); !vetted.ok()) record = vetted;
    }
    if (!record.ok()) {
      bad(where, record.status());
      continue;
    }
    if (bad_count > 0) continue;
    absl::StatusOr<WriteOutcome> outcome = WriteRecord(*record, UnknownJob::kCreateStub);
    if (!outcome.ok()) return internal::WithContext(outcome.status(), where);
    ++stats.lines;
    stats.writes.Count(*outcome);
  }
  if (in.bad()) {
    return absl::DataLossError(internal::Cat(source_name, ": read error; nothing imported"));
  }
  if (bad_count > 0) {
    std::string message = internal::Cat(bad_count, bad_count == 1 ? " bad line" : " bad lines",
                                        ", nothing imported: ", absl::StrJoin(bad_lines, "; "));
    if (bad_count > kMaxReportedBadLines) absl::StrAppend(&message, "; ... (", bad_count - kMaxReportedBadLines, " more)");
    return absl::InvalidArgumentError(message);
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
