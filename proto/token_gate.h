// The farm's token check, in one place: gRPC's own credentials run it for every call, before any
// handler, so no method of any service (including one added later) can forget it.
//
// The mechanism is gRPC core's auth metadata processor, attached to the listening port's
// credentials. gRPC 1.51's C++ wrapper refuses a processor on plaintext credentials (it aborts:
// insecure_server_credentials.cc:43), and its server interceptors cannot reject a call, so
// TokenGatedCredentials makes the core credentials itself (plaintext or TLS) and adds the port
// through the C API. gRPC's health service (grpc.health.v1.Health) needs no token, so that probes
// and load balancers can ask whether a server is up.
//
// What a processor is not told: the caller's address (gRPC gives it only the call's metadata
// and, under TLS, the client certificate). A refusal is logged with the method it was for.
#ifndef TUNEFARM_PROTO_TOKEN_GATE_H_
#define TUNEFARM_PROTO_TOKEN_GATE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <grpcpp/security/server_credentials.h>

struct grpc_server_credentials;

namespace tunefarm::wire {

// Why a call with these metadata entries is refused (missing, repeated or wrong token), or
// nothing when it may go on. `path` is the call's method ("/tunefarm.v1.Tracker/Register").
// Never echoes either token; compares in constant time.
std::optional<std::string> TokenRefusal(std::string_view path,
                                        const std::vector<std::pair<std::string_view, std::string_view>>& metadata,
                                        std::string_view expected);

// Server credentials whose every call must carry `token`. Takes ownership of `core` (from
// grpc_insecure_server_credentials_create or grpc_ssl_server_credentials_create_ex), which
// gets the token processor now, before any port uses it.
class TokenGatedCredentials final : public grpc::ServerCredentials {
 public:
  TokenGatedCredentials(grpc_server_credentials* core, std::string token);
  ~TokenGatedCredentials() override;
  TokenGatedCredentials(const TokenGatedCredentials&) = delete;
  TokenGatedCredentials& operator=(const TokenGatedCredentials&) = delete;

  // The token check is this credentials' processor; another one cannot replace it.
  void SetAuthMetadataProcessor(const std::shared_ptr<grpc::AuthMetadataProcessor>& processor) override;

 private:
  int AddPortToServer(const std::string& addr, grpc_server* server) override;

  grpc_server_credentials* core_;
};

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_TOKEN_GATE_H_
