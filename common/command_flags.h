// The option parser of every tunefarm binary and subcommand (`tunefarm ...`, tunefarm-tracker,
// tunefarm-agent, the test fakes and benches). Each command describes itself once (a
// CommandSpec); parsing and the usage text both come from that description, so they
// cannot disagree. (absl::flags is process-global: the options of different subcommands
// would collide there.)
//
// One exception: tunefarm-measure, the agent's helper, reads a fixed argument list that only the
// agent writes (device_agent/measure_protocol.h, MeasureArgs/ParseMeasureArgs: an internal
// protocol, not a command line for people), and links neither Abseil nor this file, because it
// starts once per batch and its start-up time is measured overhead.
//
// Accepted forms: "--name value", "--name=value", "-n value" for a flag with a short name,
// bare "--name" for a switch, "--" to end the options. Anything not starting with '-' (and
// "-" itself, which names stdin) is a positional argument.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tunefarm {

struct FlagSpec {
  std::string name;        // long name: --name
  char short_name = 0;     // also -c when not 0
  std::string value_name;  // "FILE", "N"...; empty for a switch, which takes no value
  std::string help;
  bool required = false;
  bool repeated = false;  // may be given several times (--input A --input B); see GetAll
};

struct CommandSpec {
  std::string name;  // as typed after `tunefarm`, e.g. "db best"
  std::string summary;
  std::vector<FlagSpec> flags;
  std::vector<std::string> positionals;  // names of the required positional arguments, in order
};

// "usage: tunefarm <name> ..." followed by one line per flag.
std::string Usage(const CommandSpec& spec);

class ParsedFlags {
 public:
  // Parses argv[1..argc) against `spec` (argv[0], the command's name, is skipped). Errors are
  // InvalidArgument naming the offending flag or argument: unknown flag, missing value, flag
  // given twice, missing required flag or positional, extra positional. --help / -h is always
  // accepted and suspends the required checks.
  static absl::StatusOr<ParsedFlags> Parse(const CommandSpec& spec, int argc, char** argv);

  bool help() const { return help_; }
  bool Has(std::string_view name) const;
  std::string Get(std::string_view name, std::string_view fallback = "") const;
  // InvalidArgument naming the flag when its value is not an integer in [min, max].
  absl::StatusOr<int64_t> GetInt(std::string_view name, int64_t fallback, int64_t min,
                                 int64_t max) const;
  // Every value of a repeated flag, in command-line order (the one value of any other flag).
  std::vector<std::string> GetAll(std::string_view name) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  bool help_ = false;
  std::map<std::string, std::string, std::less<>> values_;  // a repeated flag: its last value
  std::map<std::string, std::vector<std::string>, std::less<>> repeated_;
  std::vector<std::string> positionals_;
};

}  // namespace tunefarm
