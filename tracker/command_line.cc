#include "tracker/command_line.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tunefarm::tracker {

absl::StatusOr<CommandLine> CommandLine::Parse(int argc, char** argv,
                                               const std::set<std::string>& valued,
                                               const std::set<std::string>& switches) {
  CommandLine line;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "'"));
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (switches.count(name) > 0) {
      if (has_value) return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      line.values_[name] = "true";
    } else if (valued.count(name) > 0) {
      if (!has_value) {
        if (i + 1 >= argc) return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
        value = argv[++i];
      }
      line.values_[name] = value;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option --", name));
    }
  }
  return line;
}

std::string CommandLine::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

absl::StatusOr<int64_t> CommandLine::GetInt(const std::string& name, int64_t fallback, int64_t min,
                                            int64_t max) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  int64_t value = 0;
  if (!absl::SimpleAtoi(it->second, &value) || value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrCat("--", name, " ", it->second,
                                                   ": expected an integer in [", min, ", ", max, "]"));
  }
  return value;
}

}  // namespace tunefarm::tracker
