// What every `tunefarm` subcommand shares: the exit codes, how errors are reported (stderr,
// prefixed with the command), and parsing argv with --help and usage errors handled.
#pragma once

#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "common/command_flags.h"

namespace tunefarm::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the command ran and failed (missing file, bad data...)
inline constexpr int kExitUsage = 2;    // the command line is wrong

// "tunefarm <command>: <message>" then the usage, to stderr; returns kExitUsage.
int ReportUsageError(const CommandSpec& spec, std::string_view message);
int ReportUsageError(const CommandSpec& spec, const absl::Status& status);
// "tunefarm <command>: <message>" to stderr; returns kExitFailure.
int ReportFailure(std::string_view command, std::string_view message);
int ReportFailure(std::string_view command, const absl::Status& status);

// The message of a status, without its code (absl::string_view is not std::string_view here).
std::string_view MessageOf(const absl::Status& status);

struct ParseResult {
  std::optional<ParsedFlags> flags;  // empty: stop and return exit_code
  int exit_code = kExitOk;
};

// Parses argv for `spec`. On --help the usage goes to stdout (exit 0); on a usage error the
// message and usage go to stderr (exit 2); either way `flags` is empty.
ParseResult ParseCommandLine(const CommandSpec& spec, int argc, char** argv);

}  // namespace tunefarm::cli
