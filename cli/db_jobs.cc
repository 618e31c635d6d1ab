// `tunefarm db jobs`: the tuning jobs the database holds, oldest first.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/db_actions.h"
#include "cli/db_json.h"
#include "cli/db_open.h"
#include "cli/table.h"
#include "common/strings.h"
#include "common/unix_time.h"

namespace tunefarm::cli {
namespace {

const CommandSpec& JobsSpec() {
  static const CommandSpec spec{
      "db jobs",
      "Lists tuning jobs, oldest first.",
      {DbFlag(),
       {"state", 0, "STATE", "only jobs in this state: queued, running (interrupted ones too), done, failed, cancelled"},
       JsonFlag()},
      {}};
  return spec;
}

std::string JobsTable(const std::vector<db::Job>& jobs) {
  using A = Table::Align;
  Table table({{"JOB ID"}, {"STATE"}, {"TRIALS", A::kRight}, {"CREATED"}, {"UPDATED"}, {"ERROR"}});
  for (const db::Job& job : jobs) {
    table.AddRow({job.job_id, std::string(db::DisplayState(job, UnixMillisNow())),
                  StrCat(job.trials_done, "/", job.trials_total), FormatUnixMs(job.created_unix_ms),
                  FormatUnixMs(job.updated_unix_ms), job.error_message});
  }
  return table.ToString();
}

}  // namespace

int RunDbJobs(int argc, char** argv) {
  const CommandSpec& spec = JobsSpec();
  ParseResult parsed = ParseCommandLine(spec, argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  std::optional<db::JobState> state;
  if (parsed.flags->Has("state")) {
    absl::StatusOr<db::JobState> parsed_state = db::ParseJobState(parsed.flags->Get("state"));
    if (!parsed_state.ok()) {
      return ReportUsageError(spec, StrCat("--state: ", MessageOf(parsed_state.status())));
    }
    state = *parsed_state;
  }
  auto database = OpenExistingDatabase(parsed.flags->Get("db"));
  if (!database.ok()) return ReportFailure(spec.name, database.status());

  absl::StatusOr<std::vector<db::Job>> jobs = (*database)->ListJobs(state);
  if (!jobs.ok()) return ReportFailure(spec.name, jobs.status());
  if (parsed.flags->Has("json")) {
    nlohmann::json list = nlohmann::json::array();
    for (const db::Job& job : *jobs) list.push_back(JobJson(job));
    PrintJson({{"jobs", list}});
  } else {
    std::fputs(JobsTable(*jobs).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
