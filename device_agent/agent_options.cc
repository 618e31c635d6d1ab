#include "device_agent/agent_options.h"

#include <limits.h>
#include <unistd.h>

#include <charconv>
#include <map>
#include <set>

#include "compiler/common/strings.h"

namespace tunefarm::agent {

const char kAgentUsage[] =
    "usage: tunefarm agent --key KEY [--tracker HOST:PORT] [--port P] [--host H]\n"
    "                      [--advertise-host H] [--name N] [--capacity N] [--token-file FILE]\n"
    "                      [--cache-mb N] [--cache-dir DIR] [--memory-limit-mb N]\n"
    "                      [--default-timeout-ms N] [--max-timeout-ms N] [--measure-helper PATH]\n"
    "                      [--tls-cert PEM --tls-key PEM [--tls-ca PEM]]\n"
    "                      [--tracker-ca PEM [--tracker-cert PEM --tracker-key PEM]] [--quiet]\n"
    "  --key KEY               device pool to join, e.g. znver3 or rpi4 (required)\n"
    "  --tracker HOST:PORT     register there and heartbeat; without it, serve unregistered\n"
    "  --port P                port to listen on (default 9191; 0 picks a free one)\n"
    "  --host H                address to listen on (default 0.0.0.0)\n"
    "  --advertise-host H      host clients should dial (default: --host, or the host name)\n"
    "  --token-file FILE       shared secret (mode 0600); else $TUNEFARM_TOKEN\n"
    "  --cache-mb N            kernel cache size (default 1024); LRU beyond it\n"
    "  --cache-dir DIR         parent of the private cache directory (default $TMPDIR or /tmp;\n"
    "                          it must allow executables: not mounted noexec)\n"
    "  --memory-limit-mb N     address-space limit of a measurement (default 3/4 of RAM)\n"
    "  --default-timeout-ms N  per-candidate timeout when a request gives none (10000)\n"
    "  --max-timeout-ms N      the most a request may ask for (600000)\n"
    "  --measure-helper PATH   tunefarm-measure (default: next to this executable)\n";

namespace {

const std::set<std::string> kValued = {
    "tracker", "key", "host", "port", "advertise-host", "name", "capacity", "token-file",
    "tls-cert", "tls-key", "tls-ca", "tracker-ca", "tracker-cert", "tracker-key", "cache-mb",
    "cache-dir", "memory-limit-mb", "default-timeout-ms", "max-timeout-ms", "measure-helper"};
const std::set<std::string> kSwitches = {"quiet", "help"};

absl::StatusOr<int64_t> Integer(const std::map<std::string, std::string>& values,
                                const std::string& name, int64_t fallback, int64_t min,
                                int64_t max) {
  auto it = values.find(name);
  if (it == values.end()) return fallback;
  int64_t value = 0;
  const std::string& text = it->second;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return absl::InvalidArgumentError(StrCat("--", name, ": expected an integer in [", min, ", ",
                                             max, "], got '", text, "'"));
  }
  return value;
}

}  // namespace

absl::StatusOr<AgentCommandOptions> ParseAgentOptions(int argc, char** argv) {
  std::map<std::string, std::string> values;
  AgentCommandOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) return absl::InvalidArgumentError(StrCat("unexpected argument '", arg, "'"));
    arg = arg.substr(2);
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    if (kSwitches.count(name) > 0 && eq == std::string::npos) {
      values[name] = "";
      continue;
    }
    if (kValued.count(name) == 0) return absl::InvalidArgumentError(StrCat("unknown option --", name));
    if (eq != std::string::npos) {
      values[name] = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      values[name] = argv[++i];
    } else {
      return absl::InvalidArgumentError(StrCat("--", name, " needs a value"));
    }
  }
  auto get = [&](const std::string& name, const std::string& fallback = "") {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  };
  options.help = values.count("help") > 0;
  options.quiet = values.count("quiet") > 0;
  if (options.help) return options;
  options.tracker = get("tracker");
  options.key = get("key");
  if (options.key.empty()) return absl::InvalidArgumentError("--key KEY is required");
  options.host = get("host", options.host);
  options.advertise_host = get("advertise-host");
  options.name = get("name");
  options.token_file = get("token-file");
  options.tls = {get("tls-cert"), get("tls-key"), get("tls-ca")};
  options.tracker_tls = {get("tracker-cert"), get("tracker-key"), get("tracker-ca")};
  options.cache_dir = get("cache-dir");
  options.measure_helper = get("measure-helper");

  const absl::StatusOr<int64_t> port = Integer(values, "port", options.port, 0, 65535);
  const absl::StatusOr<int64_t> capacity = Integer(values, "capacity", 1, 1, 1024);
  const absl::StatusOr<int64_t> cache_mb = Integer(values, "cache-mb", 1024, 1, int64_t{1} << 30);
  const absl::StatusOr<int64_t> memory_mb = Integer(values, "memory-limit-mb", 0, 0, int64_t{1} << 30);
  const absl::StatusOr<int64_t> default_timeout =
      Integer(values, "default-timeout-ms", options.default_timeout_ms, 1, INT32_MAX);
  const absl::StatusOr<int64_t> max_timeout =
      Integer(values, "max-timeout-ms", options.max_timeout_ms, 1, INT32_MAX);
  for (const auto* value : {&port, &capacity, &cache_mb, &memory_mb, &default_timeout, &max_timeout}) {
    if (!value->ok()) return value->status();
  }
  options.port = static_cast<int>(*port);
  options.capacity = static_cast<int>(*capacity);
  options.cache_bytes = *cache_mb << 20;
  options.memory_limit_bytes = *memory_mb > 0 ? *memory_mb << 20 : DefaultMemoryLimitBytes();
  options.default_timeout_ms = static_cast<int32_t>(*default_timeout);
  options.max_timeout_ms = static_cast<int32_t>(*max_timeout);
  return options;
}

std::string ResolveMeasureHelper(const std::string& flag) {
  if (!flag.empty()) return flag;
  char self[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "tunefarm-measure";
  std::string dir(self, static_cast<size_t>(n));
  return dir.substr(0, dir.rfind('/') + 1) + "tunefarm-measure";
}

std::string ResolveAdvertiseHost(const AgentCommandOptions& options) {
  if (!options.advertise_host.empty()) return options.advertise_host;
  if (options.host != "0.0.0.0" && options.host != "::" && options.host != "[::]") {
    return options.host;
  }
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') return name;
  return "localhost";
}

int64_t DefaultMemoryLimitBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return int64_t{4} << 30;
  return static_cast<int64_t>(pages) * page_size / 4 * 3;
}

}  // namespace tunefarm::agent
