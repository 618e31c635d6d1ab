#include "device_agent/agent_options.h"

#include "device_agent/cuda_driver.h"

#include <limits.h>
#include <unistd.h>

#include "common/command_flags.h"
#include "common/strings.h"

namespace tunefarm::agent {

namespace {

const CommandSpec& AgentSpec() {
  static const CommandSpec spec{
      "agent",
      "Serves one device: takes kernels and times them for the tuner.",
      {{"key", 0, "KEY", "device pool to join, e.g. znver3 or rpi4", true},
       {"tracker", 0, "HOST:PORT", "register there and heartbeat; without it, serve unregistered"},
       {"port", 0, "P", "port to listen on (default 9191; 0 picks a free one)"},
       {"host", 0, "H", "address to listen on (default 0.0.0.0)"},
       {"advertise-host", 0, "H", "host clients should dial (default: --host, or the host name)"},
       {"name", 0, "N", "a name for people (default: the advertised host)"},
       {"capacity", 0, "N", "leases it takes at once (default 1)"},
       {"token-file", 0, "FILE", "shared secret (mode 0600); else $TUNEFARM_TOKEN"},
       {"cache-mb", 0, "N", "kernel cache size (default 1024); LRU beyond it"},
       {"cache-dir", 0, "DIR",
        "parent of the private cache directory (default $TMPDIR or /tmp; it must allow executables)"},
       {"memory-limit-mb", 0, "N", "address-space limit of a measurement (default 3/4 of RAM)"},
       {"default-timeout-ms", 0, "N", "per-candidate timeout when a request gives none (10000)"},
       {"max-timeout-ms", 0, "N", "the most a request may ask for (600000)"},
       {"measure-helper", 0, "PATH", "tunefarm-measure (default: next to this executable)"},
       {"cpuinfo", 0, "FILE",
        "the CPU description to report (default /proc/cpuinfo; under qemu-user, the board's)"},
       {"device", 0, "DEV", "what kernels run on: cpu (default), or cuda:N for an NVIDIA GPU (docs/gpu.md)"},
       {"cuda-driver", 0, "LIB", "the CUDA driver library for --device cuda:N (default libcuda.so.1)"},
       {"tls-cert", 0, "PEM", "serve TLS with this certificate (with --tls-key)"},
       {"tls-key", 0, "PEM", "the certificate's private key"},
       {"tls-ca", 0, "PEM", "demand client certificates signed by this CA"},
       {"tracker-ca", 0, "PEM", "dial the tracker with TLS, trusting this CA"},
       {"tracker-cert", 0, "PEM", "our certificate for the tracker, for mutual TLS"},
       {"tracker-key", 0, "PEM", "its private key"},
       {"quiet", 0, "", "log only refused calls and errors"}},
      {}};
  return spec;
}

}  // namespace

std::string AgentUsage() { return Usage(AgentSpec()); }

absl::StatusOr<AgentCommandOptions> ParseAgentOptions(int argc, char** argv) {
  auto flags = ParsedFlags::Parse(AgentSpec(), argc, argv);
  if (!flags.ok()) return flags.status();
  AgentCommandOptions options;
  options.help = flags->help();
  options.quiet = flags->Has("quiet");
  if (options.help) return options;
  options.tracker = flags->Get("tracker");
  options.key = flags->Get("key");
  options.host = flags->Get("host", options.host);
  options.advertise_host = flags->Get("advertise-host");
  options.name = flags->Get("name");
  options.token_file = flags->Get("token-file");
  options.tls = {flags->Get("tls-cert"), flags->Get("tls-key"), flags->Get("tls-ca")};
  options.tracker_tls = {flags->Get("tracker-cert"), flags->Get("tracker-key"), flags->Get("tracker-ca")};
  options.cache_dir = flags->Get("cache-dir");
  options.measure_helper = flags->Get("measure-helper");
  options.cpuinfo = flags->Get("cpuinfo", options.cpuinfo);
  options.device = flags->Get("device", options.device);
  options.cuda_driver = flags->Get("cuda-driver", options.cuda_driver);
  if (options.device != "cpu" && ParseCudaDevice(options.device) < 0) {
    return absl::InvalidArgumentError(StrCat("--device ", options.device, ": expected cpu or cuda:N"));
  }

  const absl::StatusOr<int64_t> port = flags->GetInt("port", options.port, 0, 65535);
  const absl::StatusOr<int64_t> capacity = flags->GetInt("capacity", 1, 1, 1024);
  const absl::StatusOr<int64_t> cache_mb = flags->GetInt("cache-mb", 1024, 1, int64_t{1} << 30);
  const absl::StatusOr<int64_t> memory_mb = flags->GetInt("memory-limit-mb", 0, 0, int64_t{1} << 30);
  const absl::StatusOr<int64_t> default_timeout =
      flags->GetInt("default-timeout-ms", options.default_timeout_ms, 1, INT32_MAX);
  const absl::StatusOr<int64_t> max_timeout = flags->GetInt("max-timeout-ms", options.max_timeout_ms, 1, INT32_MAX);
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
