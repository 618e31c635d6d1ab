// `tunefarm db stats`: what the database knows, per workload.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/db_actions.h"
#include "cli/db_json.h"
#include "cli/db_open.h"
#include "cli/table.h"

namespace tunefarm::cli {
namespace {

const CommandSpec& StatsSpec() {
  static const CommandSpec spec{
      "db stats",
      "Per workload: record count, valid records, best cost (median of repeats), number of targets.",
      {DbFlag(), {"workload", 0, "KEY", "only this workload (exit 1 when unknown)"}, JsonFlag()},
      {}};
  return spec;
}

std::string StatsTable(const std::vector<db::WorkloadStats>& all) {
  using A = Table::Align;
  Table table({{"WORKLOAD"},
               {"RECORDS", A::kRight},
               {"VALID", A::kRight},
               {"BEST", A::kRight},
               {"TARGETS", A::kRight}});
  for (const db::WorkloadStats& s : all) {
    table.AddRow({s.workload_key, std::to_string(s.record_count), std::to_string(s.valid_count),
                  FormatSeconds(s.best_cost), std::to_string(s.target_count)});
  }
  return table.ToString();
}

}  // namespace

int RunDbStats(int argc, char** argv) {
  const CommandSpec& spec = StatsSpec();
  ParseResult parsed = ParseCommandLine(spec, argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  auto database = OpenExistingDatabase(parsed.flags->Get("db"));
  if (!database.ok()) return ReportFailure(spec.name, database.status());

  std::vector<db::WorkloadStats> all;
  if (parsed.flags->Has("workload")) {
    absl::StatusOr<db::WorkloadStats> one = (*database)->StatsOf(parsed.flags->Get("workload"));
    if (!one.ok()) return ReportFailure(spec.name, one.status());
    all.push_back(std::move(*one));
  } else {
    absl::StatusOr<std::vector<db::WorkloadStats>> every = (*database)->AllWorkloadStats();
    if (!every.ok()) return ReportFailure(spec.name, every.status());
    all = std::move(*every);
  }

  if (parsed.flags->Has("json")) {
    nlohmann::json workloads = nlohmann::json::array();
    for (const db::WorkloadStats& s : all) workloads.push_back(WorkloadStatsJson(s));
    PrintJson({{"database", (*database)->path()}, {"workloads", workloads}});
  } else {
    std::fputs(StatsTable(all).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
