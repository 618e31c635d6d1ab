// `tunefarm version`: what a bug report needs to know about this binary.
#include <cstdio>
#include <string>

#include "cli/command.h"
#include "cli/subcommands.h"
#include "common/allocator_name.h"
#include "common/strings.h"
#include "db/tuning_database.h"

#ifndef TUNEFARM_VERSION
#error "cli/CMakeLists.txt defines TUNEFARM_VERSION"
#endif

namespace tunefarm::cli {

int RunVersionCommand(int argc, char** argv) {
  static const CommandSpec kSpec{"version", "Prints the version, database schema and build.", {}, {}};
  ParseResult parsed = ParseCommandLine(kSpec, argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  const std::string text =
      StrCat("tunefarm ", TUNEFARM_VERSION, "\n",
             "tuning database schema version ", db::TuningDatabase::SchemaVersion(), "\n",
             "device agent: ", HaveAgent() ? "built in" : "not built in", "\n",
             "allocator: ", AllocatorName(), "\n");
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

}  // namespace tunefarm::cli
