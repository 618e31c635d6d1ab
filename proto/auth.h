// The farm's shared secret: every call carries the token as `tunefarm-token` metadata (call
// credentials would need TLS in gRPC 1.51, so clients add it themselves). Servers check it in
// their credentials, before any handler (token_gate.h).
#ifndef TUNEFARM_PROTO_AUTH_H_
#define TUNEFARM_PROTO_AUTH_H_

#include <string>
#include <string_view>

#include <grpcpp/client_context.h>

#include "absl/status/statusor.h"

namespace tunefarm::wire {

inline constexpr char kTokenMetadataKey[] = "tunefarm-token";
inline constexpr char kTokenEnvVar[] = "TUNEFARM_TOKEN";

// Reads the token from `token_file` when it is non-empty, else from $TUNEFARM_TOKEN. A token
// file readable by group or others is refused (like ssh keys): chmod 600 it. Surrounding
// whitespace (the trailing newline of `echo`) is dropped; an empty token is an error.
absl::StatusOr<std::string> LoadToken(std::string_view token_file);

// A server's token is a password to everything the farm runs: on an address other machines
// can reach it must hold at least kMinServerTokenBytes. On loopback a shorter one is allowed
// (tests, a single machine) and `warning` says so; otherwise it is left empty.
inline constexpr size_t kMinServerTokenBytes = 16;
absl::Status CheckServerToken(std::string_view token, std::string_view listen_host, std::string* warning);

// Client side: attach the token to one call.
void AddToken(grpc::ClientContext& context, std::string_view token);

// Equality that takes the same time wherever the first difference is.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_AUTH_H_
