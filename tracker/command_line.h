// A small option parser for the tracker's subcommands. (absl::flags is process-global, and the
// `tunefarm` binary hosts several subcommands whose options would collide there.)
#ifndef TUNEFARM_TRACKER_COMMAND_LINE_H_
#define TUNEFARM_TRACKER_COMMAND_LINE_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"

namespace tunefarm::tracker {

class CommandLine {
 public:
  // Parses argv[1..argc): "--name value", "--name=value" for `valued` names, bare "--name" for
  // `switches`. Anything else is an error naming the offending argument.
  static absl::StatusOr<CommandLine> Parse(int argc, char** argv,
                                           const std::set<std::string>& valued,
                                           const std::set<std::string>& switches);

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  // InvalidArgument naming the option when the value is not an integer in [min, max].
  absl::StatusOr<int64_t> GetInt(const std::string& name, int64_t fallback, int64_t min,
                                 int64_t max) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_COMMAND_LINE_H_
