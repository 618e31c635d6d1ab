#include "tuner/device_locality.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <set>

#include "proto/host_port.h"

namespace tunefarm::tuner {
namespace {

// An IPv4 or IPv6 address as text, the form inet_ntop gives (IPv4-mapped IPv6 as IPv4).
std::string AddressText(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
  } else if (address->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
      inet_ntop(AF_INET, &a.s6_addr[12], text, sizeof text);
    } else {
      inet_ntop(AF_INET6, &a, text, sizeof text);
    }
  }
  return text;
}

std::set<std::string> InterfaceAddresses() {
  std::set<std::string> addresses;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return addresses;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next)
    if (i->ifa_addr != nullptr) addresses.insert(AddressText(i->ifa_addr));
  freeifaddrs(list);
  addresses.erase("");
  return addresses;
}

}  // namespace

bool DeviceIsOnThisHost(const std::string& address) {
  auto parsed = wire::ParseHostPort(address);
  if (!parsed.ok()) return true;
  const std::string& host = parsed->host;
  if (wire::IsLoopbackHost(host) || host == "0.0.0.0" || host == "::") return true;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0 && host == name) return true;

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* resolved = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &resolved) != 0) return true;
  const std::set<std::string> local = InterfaceAddresses();
  bool here = false;
  for (addrinfo* r = resolved; r != nullptr && !here; r = r->ai_next) {
    const std::string text = AddressText(r->ai_addr);
    here = local.count(text) > 0 || text.rfind("127.", 0) == 0 || text == "::1";
  }
  freeaddrinfo(resolved);
  return here;
}

}  // namespace tunefarm::tuner
