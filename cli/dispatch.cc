#include "cli/dispatch.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/strings.h"

namespace tunefarm::cli {
namespace {

const Subcommand* Find(std::span<const Subcommand> table, std::string_view name) {
  for (const Subcommand& subcommand : table) {
    if (name == subcommand.name) return &subcommand;
  }
  return nullptr;
}

std::string Overview(std::string_view program, std::span<const Subcommand> table) {
  return StrCat("usage: ", program, " <command> [options]\n\ncommands:\n", SubcommandList(table),
                "\nRun '", program, " <command> --help' for a command's options.\n");
}

int UsageError(std::string_view program, std::span<const Subcommand> table,
               std::string_view message) {
  std::fputs(StrCat(program, ": ", message, "\n", Overview(program, table)).c_str(), stderr);
  return kExitUsage;
}

}  // namespace

std::string SubcommandList(std::span<const Subcommand> table) {
  size_t width = 0;
  for (const Subcommand& subcommand : table) width = std::max(width, std::strlen(subcommand.name));
  std::string text;
  for (const Subcommand& subcommand : table) {
    StrAppend(&text, "  ", subcommand.name,
              std::string(width - std::strlen(subcommand.name) + 2, ' '), subcommand.help, "\n");
  }
  return text;
}

int Dispatch(std::string_view program, std::span<const Subcommand> table, int argc, char** argv) {
  if (argc < 2) return UsageError(program, table, "missing command");
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || (name == "help" && argc == 2)) {
    std::fputs(Overview(program, table).c_str(), stdout);
    return kExitOk;
  }
  if (name == "help") {
    const Subcommand* subcommand = Find(table, argv[2]);
    if (subcommand == nullptr) {
      return UsageError(program, table, StrCat("unknown command '", argv[2], "'"));
    }
    char help_flag[] = "--help";
    char* help_argv[] = {argv[2], help_flag, nullptr};
    return subcommand->run(2, help_argv);
  }
  const Subcommand* subcommand = Find(table, name);
  if (subcommand == nullptr) {
    std::vector<std::string_view> names;
    for (const Subcommand& s : table) names.push_back(s.name);
    return UsageError(program, table,
                      StrCat("unknown command '", name, "' (one of: ", StrJoin(names, ", "), ")"));
  }
  return subcommand->run(argc - 1, argv + 1);
}

}  // namespace tunefarm::cli
