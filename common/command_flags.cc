#include "common/command_flags.h"

#include <algorithm>

#include "absl/status/status.h"
#include "common/strings.h"

namespace tunefarm {
namespace {

const FlagSpec* FindLong(const CommandSpec& spec, std::string_view name) {
  for (const FlagSpec& flag : spec.flags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

const FlagSpec* FindShort(const CommandSpec& spec, char c) {
  for (const FlagSpec& flag : spec.flags) {
    if (flag.short_name != 0 && flag.short_name == c) return &flag;
  }
  return nullptr;
}

// How the flag is written in messages: "--top" or "-k/--top".
std::string Spelling(const FlagSpec& flag) {
  return flag.short_name != 0 ? StrCat("-", flag.short_name, "/--", flag.name)
                              : StrCat("--", flag.name);
}

std::string Synopsis(const FlagSpec& flag) {
  std::string text = flag.short_name != 0 ? StrCat("-", flag.short_name) : StrCat("--", flag.name);
  if (!flag.value_name.empty()) StrAppend(&text, " ", flag.value_name);
  return flag.required ? text : StrCat("[", text, "]");
}

absl::Status UsageError(std::string message) {
  return absl::InvalidArgumentError(message);
}

}  // namespace

std::string Usage(const CommandSpec& spec) {
  std::string text = StrCat("usage: tunefarm ", spec.name);
  for (const FlagSpec& flag : spec.flags) StrAppend(&text, " ", Synopsis(flag));
  for (const std::string& positional : spec.positionals) StrAppend(&text, " ", positional);
  StrAppend(&text, "\n");
  if (!spec.summary.empty()) StrAppend(&text, "  ", spec.summary, "\n");

  std::vector<std::pair<std::string, std::string>> rows;
  for (const FlagSpec& flag : spec.flags) {
    std::string left = flag.short_name != 0 ? StrCat("-", flag.short_name, ", --", flag.name)
                                            : StrCat("--", flag.name);
    if (!flag.value_name.empty()) StrAppend(&left, " ", flag.value_name);
    rows.emplace_back(std::move(left), flag.required ? StrCat(flag.help, " (required)") : flag.help);
  }
  size_t width = 0;
  for (const auto& [left, help] : rows) width = std::max(width, left.size());
  for (const auto& [left, help] : rows) {
    StrAppend(&text, "  ", left, std::string(width - left.size() + 2, ' '), help, "\n");
  }
  return text;
}

absl::StatusOr<ParsedFlags> ParsedFlags::Parse(const CommandSpec& spec, int argc, char** argv) {
  ParsedFlags parsed;
  bool options_ended = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (options_ended || arg == "-" || arg.empty() || arg[0] != '-') {
      parsed.positionals_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      parsed.help_ = true;
      continue;
    }

    const FlagSpec* flag = nullptr;
    std::string value;
    bool has_value = false;
    if (StartsWith(arg, "--")) {
      std::string name = arg.substr(2);
      if (size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name.resize(eq);
        has_value = true;
      }
      flag = FindLong(spec, name);
      if (flag == nullptr) return UsageError(StrCat("unknown flag --", name));
    } else {
      if (arg.size() != 2) return UsageError(StrCat("unknown flag ", arg));
      flag = FindShort(spec, arg[1]);
      if (flag == nullptr) return UsageError(StrCat("unknown flag ", arg));
    }

    if (flag->value_name.empty()) {
      if (has_value) return UsageError(StrCat(Spelling(*flag), " takes no value"));
      value = "true";
    } else if (!has_value) {
      if (i + 1 >= argc) {
        return UsageError(StrCat(Spelling(*flag), " needs a value (", flag->value_name, ")"));
      }
      value = argv[++i];
    }
    if (flag->repeated) {
      parsed.repeated_[flag->name].push_back(value);
      parsed.values_[flag->name] = value;
    } else if (!parsed.values_.emplace(flag->name, value).second) {
      return UsageError(StrCat(Spelling(*flag), " given twice"));
    }
  }
  if (parsed.help_) return parsed;

  for (const FlagSpec& flag : spec.flags) {
    if (flag.required && !parsed.Has(flag.name)) {
      return UsageError(StrCat("missing required flag ", Spelling(flag),
                               flag.value_name.empty() ? "" : " ", flag.value_name));
    }
  }
  if (parsed.positionals_.size() < spec.positionals.size()) {
    return UsageError(
        StrCat("missing argument ", spec.positionals[parsed.positionals_.size()]));
  }
  if (parsed.positionals_.size() > spec.positionals.size()) {
    return UsageError(
        StrCat("unexpected argument '", parsed.positionals_[spec.positionals.size()], "'"));
  }
  return parsed;
}

std::vector<std::string> ParsedFlags::GetAll(std::string_view name) const {
  auto it = repeated_.find(name);
  if (it != repeated_.end()) return it->second;
  if (Has(name)) return {Get(name)};
  return {};
}

bool ParsedFlags::Has(std::string_view name) const { return values_.find(name) != values_.end(); }

std::string ParsedFlags::Get(std::string_view name, std::string_view fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::string(fallback) : it->second;
}

absl::StatusOr<int64_t> ParsedFlags::GetInt(std::string_view name, int64_t fallback, int64_t min,
                                            int64_t max) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  int64_t value = 0;
  if (!ParseInt64(it->second, &value) || value < min || value > max) {
    return UsageError(StrCat("--", name, " '", it->second, "': expected an integer in [", min,
                             ", ", max, "]"));
  }
  return value;
}

}  // namespace tunefarm
