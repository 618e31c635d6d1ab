#include "cli/command.h"

#include <cstdio>
#include <string>
#include <utility>

#include "common/strings.h"

namespace tunefarm::cli {

int ReportUsageError(const CommandSpec& spec, std::string_view message) {
  const std::string text = StrCat("tunefarm ", spec.name, ": ", message, "\n", Usage(spec));
  std::fputs(text.c_str(), stderr);
  return kExitUsage;
}

int ReportUsageError(const CommandSpec& spec, const absl::Status& status) {
  return ReportUsageError(spec, MessageOf(status));
}

int ReportFailure(std::string_view command, std::string_view message) {
  const std::string text = StrCat("tunefarm ", command, ": ", message, "\n");
  std::fputs(text.c_str(), stderr);
  return kExitFailure;
}

int ReportFailure(std::string_view command, const absl::Status& status) {
  return ReportFailure(command, MessageOf(status));
}

std::string_view MessageOf(const absl::Status& status) {
  return std::string_view(status.message().data(), status.message().size());
}

ParseResult ParseCommandLine(const CommandSpec& spec, int argc, char** argv) {
  absl::StatusOr<ParsedFlags> flags = ParsedFlags::Parse(spec, argc, argv);
  if (!flags.ok()) return {std::nullopt, ReportUsageError(spec, flags.status())};
  if (flags->help()) {
    std::fputs(Usage(spec).c_str(), stdout);
    return {std::nullopt, kExitOk};
  }
  return {std::move(*flags), kExitOk};
}

}  // namespace tunefarm::cli
