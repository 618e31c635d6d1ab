// `tunefarm db best` and `tunefarm db top`: the records the compiler would pick.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/db_actions.h"
#include "cli/db_json.h"
#include "cli/db_open.h"
#include "cli/table.h"
#include "common/strings.h"

namespace tunefarm::cli {
namespace {

constexpr int kMaxThreads = 1 << 16;

std::vector<FlagSpec> QueryFlags() {
  return {DbFlag(),
          {"workload", 0, "KEY", "workload key", true},
          {"target", 0, "TARGET", "target string (canonicalised, e.g. 'llvm -mtriple=...')", true},
          {"threads", 0, "N", "thread count of the measurements", true}};
}

const CommandSpec& BestSpec() {
  static const CommandSpec spec = [] {
    CommandSpec s{"db best", "Prints the fastest valid record of one workload, target and thread "
                             "count; exit 1 when there is none.", QueryFlags(), {}};
    s.flags.push_back(JsonFlag());
    return s;
  }();
  return spec;
}

const CommandSpec& TopSpec() {
  static const CommandSpec spec = [] {
    CommandSpec s{"db top", "Lists the k fastest valid records, fastest first.", QueryFlags(), {}};
    s.flags.push_back({"count", 'k', "N", "how many records (default 10)"});
    s.flags.push_back(JsonFlag());
    return s;
  }();
  return spec;
}

struct Query {
  std::unique_ptr<db::TuningDatabase> database;
  std::string workload;
  std::string target;  // canonical
  int threads = 1;
};

// Reads the flags QueryFlags() declares and opens the database; returns the exit code of a
// failure, or nullopt when the query is ready.
std::optional<int> PrepareQuery(const CommandSpec& spec, const ParsedFlags& flags, Query* query) {
  absl::StatusOr<int64_t> threads = flags.GetInt("threads", 1, 1, kMaxThreads);
  if (!threads.ok()) return ReportUsageError(spec, threads.status());
  absl::StatusOr<std::string> target = CanonicalTarget(flags.Get("target"));
  if (!target.ok()) return ReportUsageError(spec, target.status());
  auto database = OpenExistingDatabase(flags.Get("db"));
  if (!database.ok()) return ReportFailure(spec.name, database.status());
  query->database = std::move(*database);
  query->workload = flags.Get("workload");
  query->target = *target;
  query->threads = static_cast<int>(*threads);
  return std::nullopt;
}

nlohmann::json QueryJson(const Query& query) {
  return {{"workload_key", query.workload}, {"target", query.target}, {"threads", query.threads}};
}

std::string CostsText(const std::vector<double>& costs) {
  std::vector<std::string> parts;
  for (double cost : costs) parts.push_back(FormatSeconds(cost));
  return StrJoin(parts, ", ");
}

std::string FigureText(double value) {
  if (std::isnan(value)) return "not checked";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// How far the repeats disagreed: "4.2%" of the cost.
std::string SpreadText(const db::TuningRecord& r) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * r.Spread());
  return text;
}

// One record, one field per row: the best record is read by a person field by field.
std::string RecordFieldsTable(const db::TuningRecord& r) {
  Table table({{"FIELD"}, {"VALUE"}});
  table.AddRow({"record_id", r.record_id});
  table.AddRow({"workload_key", r.workload_key});
  table.AddRow({"target", r.target});
  table.AddRow({"threads", std::to_string(r.threads)});
  table.AddRow({"device_key", r.device_key});
  table.AddRow({"cost", FormatSeconds(r.Cost()) + " (median of " + std::to_string(r.costs_sec.size()) + " repeats)"});
  table.AddRow({"spread", SpreadText(r)});
  table.AddRow({"costs", CostsText(r.costs_sec)});
  table.AddRow({"max_abs_error", FigureText(r.max_abs_error)});
  table.AddRow({"max_rel_error", FigureText(r.max_rel_error)});
  table.AddRow({"job_id", r.job_id.empty() ? "-" : r.job_id});
  table.AddRow({"measured", FormatUnixMs(r.measured_unix_ms)});
  table.AddRow({"schedule_hash", r.schedule_hash});
  table.AddRow({"schedule", r.schedule_json});
  return table.ToString();
}

std::string RecordListTable(const std::vector<db::TuningRecord>& records) {
  using A = Table::Align;
  Table table({{"RANK", A::kRight},
               {"COST", A::kRight},
               {"MIN", A::kRight},
               {"SPREAD", A::kRight},
               {"REPEATS", A::kRight},
               {"DEVICE"},
               {"SCHEDULE HASH"},
               {"MEASURED"},
               {"RECORD ID"}});
  for (size_t i = 0; i < records.size(); ++i) {
    const db::TuningRecord& r = records[i];
    const double min = r.costs_sec.empty()
                           ? r.Cost()
                           : *std::min_element(r.costs_sec.begin(), r.costs_sec.end());
    table.AddRow({std::to_string(i + 1), FormatSeconds(r.Cost()), FormatSeconds(min), SpreadText(r),
                  std::to_string(r.costs_sec.size()), r.device_key, r.schedule_hash,
                  FormatUnixMs(r.measured_unix_ms), r.record_id});
  }
  return table.ToString();
}

}  // namespace

int RunDbBest(int argc, char** argv) {
  const CommandSpec& spec = BestSpec();
  ParseResult parsed = ParseCommandLine(spec, argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  Query query;
  if (std::optional<int> failed = PrepareQuery(spec, *parsed.flags, &query)) return *failed;

  absl::StatusOr<std::optional<db::TuningRecord>> best =
      query.database->Best(query.workload, query.target, query.threads);
  if (!best.ok()) return ReportFailure(spec.name, best.status());
  if (!best->has_value()) {
    return ReportFailure(spec.name, StrCat("no valid record for workload ", query.workload,
                                           ", target '", query.target, "', threads ",
                                           query.threads, " in ", query.database->path()));
  }
  if (parsed.flags->Has("json")) {
    nlohmann::json document = QueryJson(query);
    document["record"] = RecordJson(**best);
    PrintJson(document);
  } else {
    std::fputs(RecordFieldsTable(**best).c_str(), stdout);
  }
  return kExitOk;
}

int RunDbTop(int argc, char** argv) {
  const CommandSpec& spec = TopSpec();
  ParseResult parsed = ParseCommandLine(spec, argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  absl::StatusOr<int64_t> k = parsed.flags->GetInt("count", 10, 1, 1'000'000);
  if (!k.ok()) return ReportUsageError(spec, k.status());
  Query query;
  if (std::optional<int> failed = PrepareQuery(spec, *parsed.flags, &query)) return *failed;

  absl::StatusOr<std::vector<db::TuningRecord>> top =
      query.database->TopK(query.workload, query.target, query.threads, static_cast<int>(*k));
  if (!top.ok()) return ReportFailure(spec.name, top.status());
  if (parsed.flags->Has("json")) {
    nlohmann::json document = QueryJson(query);
    document["k"] = *k;
    document["records"] = nlohmann::json::array();
    for (const db::TuningRecord& record : *top) document["records"].push_back(RecordJson(record));
    PrintJson(document);
  } else {
    std::fputs(RecordListTable(*top).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
