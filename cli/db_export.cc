// `tunefarm db export`: every record as JSON lines, to stdout or a file.
#include <cstdio>
#include <iostream>
#include <string>

#include "cli/command.h"
#include "cli/db_actions.h"
#include "cli/db_open.h"
#include "common/strings.h"

namespace tunefarm::cli {

int RunDbExport(int argc, char** argv) {
  static const CommandSpec spec{
      "db export",
      "Writes every record as one JSON object per line, in insertion order.",
      {DbFlag(), {"output", 'o', "FILE", "write here instead of stdout (replaced if it exists)"}},
      {}};
  ParseResult parsed = ParseCommandLine(spec, argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  auto database = OpenExistingDatabase(parsed.flags->Get("db"));
  if (!database.ok()) return ReportFailure(spec.name, database.status());

  if (!parsed.flags->Has("output")) {
    // stdout carries the records and nothing else.
    absl::StatusOr<int64_t> count = (*database)->ExportJsonl(std::cout);
    if (!count.ok()) return ReportFailure(spec.name, count.status());
    return kExitOk;
  }
  const std::string output = parsed.flags->Get("output");
  absl::StatusOr<int64_t> count = (*database)->ExportJsonl(output);
  if (!count.ok()) return ReportFailure(spec.name, count.status());
  std::fputs(StrCat("exported ", *count, " records to ", output, "\n").c_str(), stdout);
  return kExitOk;
}

}  // namespace tunefarm::cli
