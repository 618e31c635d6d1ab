// Channel and server credentials for the farm: plaintext, or TLS built from PEM files.
#ifndef TUNEFARM_PROTO_CREDENTIALS_H_
#define TUNEFARM_PROTO_CREDENTIALS_H_

#include <chrono>
#include <memory>
#include <string>

#include <grpcpp/channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include "absl/status/statusor.h"

namespace tunefarm::wire {

// PEM file paths. Server: cert+key are its identity; a ca makes it demand client certificates
// signed by that CA (mutual TLS). Client: ca verifies the server and switches TLS on; cert+key
// are its identity for a server that demands one. All empty: plaintext.
struct TlsFiles {
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
};

// Server credentials (plaintext, or TLS from `tls`) that refuse every call without `token`
// (token_gate.h), before any handler runs.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(const TlsFiles& tls,
                                                                              const std::string& token);

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const TlsFiles& tls);

// A channel to `target` (HOST:PORT). max_reconnect_backoff caps gRPC's own reconnect backoff
// (1 s growing to 120 s by default), which would otherwise delay re-registration after a
// tracker restart; zero keeps gRPC's default.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(
    const std::string& target, const TlsFiles& tls,
    std::chrono::milliseconds max_reconnect_backoff = std::chrono::milliseconds(0));

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_CREDENTIALS_H_
