// HOST:PORT, the one way every dialled address is read.
//
// gRPC takes a port above 65535 modulo 2^16 (":99999" dials 34463), so an address a user typed
// is checked here before any channel is made to it, and a token never goes to a port nobody
// named. IPv6 hosts are written in brackets, "[::1]:9190".
#ifndef TUNEFARM_PROTO_HOST_PORT_H_
#define TUNEFARM_PROTO_HOST_PORT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tunefarm::wire {

struct HostPort {
  std::string host;  // without brackets
  int32_t port = 0;
};

// Splits and checks "HOST:PORT": a non-empty host (bracketed if it holds ':'), and a port of
// decimal digits in 1..65535. The error names the address and what is wrong with it.
absl::StatusOr<HostPort> ParseHostPort(std::string_view address);

// True for a listening host only this machine can reach: localhost, 127.0.0.0/8, ::1.
// "0.0.0.0" (every interface) and "" are not.
bool IsLoopbackHost(std::string_view host);

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_HOST_PORT_H_
