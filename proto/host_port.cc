#include "proto/host_port.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tunefarm::wire {
namespace {

absl::Status BadAddress(std::string_view address, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("bad address '", std::string(address), "': ", std::string(why), " (expected HOST:PORT)"));
}

}  // namespace

absl::StatusOr<HostPort> ParseHostPort(std::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return BadAddress(address, "no port");
  std::string_view host = address.substr(0, colon);
  const std::string_view port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find_first_of("[]:") != std::string_view::npos) {
    return BadAddress(address, "an IPv6 host needs brackets, e.g. [::1]:9190");
  }
  if (host.empty()) return BadAddress(address, "no host");
  if (port.empty()) return BadAddress(address, "no port");
  int64_t value = 0;
  for (const char c : port) {
    if (c < '0' || c > '9') return BadAddress(address, absl::StrCat("port '", std::string(port), "' is not a number"));
    value = value * 10 + (c - '0');
    if (value > 65535) break;
  }
  if (value < 1 || value > 65535) {
    return BadAddress(address, absl::StrCat("port ", std::string(port), " is outside 1-65535"));
  }
  return HostPort{std::string(host), static_cast<int32_t>(value)};
}

bool IsLoopbackHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host == "localhost" || host == "::1" || host.substr(0, 4) == "127.";
}

}  // namespace tunefarm::wire
