// `tunefarm db import`: adds the records of a JSON-lines file, all or nothing.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "cli/command.h"
#include "cli/db_actions.h"
#include "cli/db_json.h"
#include "cli/db_open.h"
#include "cli/import_record_check.h"
#include "common/strings.h"

namespace tunefarm::cli {

int RunDbImport(int argc, char** argv) {
  static const CommandSpec spec{
      "db import",
      "Adds the records of FILE.jsonl ('-' reads stdin) in one transaction; creates the database "
      "if missing. Importing the same file again adds nothing.",
      {DbFlag(), JsonFlag()},
      {"FILE.jsonl"}};
  ParseResult parsed = ParseCommandLine(spec, argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  const std::string source = parsed.flags->positionals()[0];

  // Open the input before the database, so that a mistyped file name creates no database.
  std::ifstream file;
  if (source != "-") {
    // A pipe is a stream of lines; a directory or a device (/dev/zero) is not.
    struct stat info {};
    if (stat(source.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode)) {
      return ReportFailure(spec.name, StrCat(source, ": ", S_ISDIR(info.st_mode) ? "is a directory" : "not a regular file",
                                             ", not a JSON-lines file"));
    }
    file.open(source, std::ios::binary);
    if (!file) return ReportFailure(spec.name, StrCat("cannot read ", source));
  }
  std::istream& in = source == "-" ? std::cin : file;
  const std::string source_name = source == "-" ? "<stdin>" : source;

  auto database = OpenOrCreateDatabase(parsed.flags->Get("db"));
  if (!database.ok()) return ReportFailure(spec.name, database.status());
  absl::StatusOr<db::ImportStats> stats =
      (*database)->ImportJsonl(in, source_name, ImportRecordCheck(database->get()));
  if (!stats.ok()) return ReportFailure(spec.name, stats.status());

  if (parsed.flags->Has("json")) {
    nlohmann::json document = ImportStatsJson(*stats);
    document["source"] = source_name;
    document["database"] = (*database)->path();
    PrintJson(document);
  } else {
    const db::WriteCounts& w = stats->writes;
    std::fputs(StrCat(source_name, ": ", stats->lines, " records read: ", w.inserted, " inserted, ",
                      w.replaced, " replaced, ", w.kept_existing, " kept existing, ", w.duplicates,
                      " duplicates\n")
                   .c_str(),
               stdout);
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
