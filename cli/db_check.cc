// `tunefarm db check`: SQLite's integrity check over the whole file.
#include <cstdio>
#include <string>

#include "cli/command.h"
#include "cli/db_actions.h"
#include "cli/db_open.h"
#include "common/strings.h"

namespace tunefarm::cli {

int RunDbCheck(int argc, char** argv) {
  static const CommandSpec spec{
      "db check",
      "Runs PRAGMA integrity_check; exit 1 naming the problems when the file is damaged.",
      {DbFlag()},
      {}};
  ParseResult parsed = ParseCommandLine(spec, argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  auto database = OpenExistingDatabase(parsed.flags->Get("db"));
  if (!database.ok()) return ReportFailure(spec.name, database.status());

  if (absl::Status status = (*database)->CheckIntegrity(); !status.ok()) {
    return ReportFailure(spec.name, status);
  }
  absl::StatusOr<int64_t> records = (*database)->RecordCount();
  if (!records.ok()) return ReportFailure(spec.name, records.status());
  std::fputs(StrCat((*database)->path(), ": ok (schema version ",
                    (*database)->schema_version(), ", ", *records, " records)\n")
                 .c_str(),
             stdout);
  return kExitOk;
}

}  // namespace tunefarm::cli
