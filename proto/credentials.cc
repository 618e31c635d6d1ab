#include "proto/credentials.h"

#include <algorithm>

#include <grpc/grpc_security.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/support/channel_arguments.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/file_read.h"
#include "proto/host_port.h"
#include "proto/tls_key_pair.h"
#include "proto/token_gate.h"

namespace tunefarm::wire {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* what) {
  absl::StatusOr<std::string> text = ReadWholeFile(path, absl::StrCat("TLS ", what, " file"));
  if (!text.ok()) return text.status();
  if (text->find("-----BEGIN") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("TLS ", what, " file ", path, " is not PEM"));
  }
  return text;
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(const TlsFiles& tls,
                                                                              const std::string& token) {
  if (tls.cert_file.empty() && tls.key_file.empty() && tls.ca_file.empty()) {
    return std::make_shared<TokenGatedCredentials>(grpc_insecure_server_credentials_create(), token);
  }
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    return absl::InvalidArgumentError("a TLS server needs both --tls-cert and --tls-key");
  }
  absl::StatusOr<std::string> cert = ReadPem(tls.cert_file, "certificate");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(tls.key_file, "key");
  if (!key.ok()) return key.status();
  if (absl::Status pair = CheckTlsKeyPair(*cert, *key, tls.cert_file, tls.key_file); !pair.ok()) return pair;
  // Core credentials, not grpc::SslServerCredentials, so that the token gate can own them.
  std::string ca;
  grpc_ssl_client_certificate_request_type request = GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE;
  if (!tls.ca_file.empty()) {
    absl::StatusOr<std::string> pem = ReadPem(tls.ca_file, "CA");
    if (!pem.ok()) return pem.status();
    ca = *std::move(pem);
    request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  grpc_ssl_pem_key_cert_pair pair{key->c_str(), cert->c_str()};
  grpc_server_credentials* core =
      grpc_ssl_server_credentials_create_ex(ca.empty() ? nullptr : ca.c_str(), &pair, 1, request, nullptr);
  if (core == nullptr) return absl::InvalidArgumentError("gRPC refused the TLS certificate, key or CA");
  return std::make_shared<TokenGatedCredentials>(core, token);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const TlsFiles& tls) {
  if (tls.cert_file.empty() && tls.key_file.empty() && tls.ca_file.empty()) {
    return grpc::InsecureChannelCredentials();
  }
  if (tls.ca_file.empty()) {
    return absl::InvalidArgumentError("a TLS client needs --tls-ca to verify the server");
  }
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return absl::InvalidArgumentError("a TLS client certificate needs both --tls-cert and --tls-key");
  }
  grpc::SslCredentialsOptions options;
  absl::StatusOr<std::string> ca = ReadPem(tls.ca_file, "CA");
  if (!ca.ok()) return ca.status();
  options.pem_root_certs = *ca;
  if (!tls.cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadPem(tls.cert_file, "certificate");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(tls.key_file, "key");
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  return grpc::SslCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(
    const std::string& target, const TlsFiles& tls,
    std::chrono::milliseconds max_reconnect_backoff) {
  if (target.empty()) return absl::InvalidArgumentError("empty address (expected HOST:PORT)");
  if (absl::StatusOr<HostPort> address = ParseHostPort(target); !address.ok()) return address.status();
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> creds = MakeChannelCredentials(tls);
  if (!creds.ok()) return creds.status();
  grpc::ChannelArguments args;
  if (max_reconnect_backoff.count() > 0) {
    // Only the backoff between attempts: GRPC_ARG_MIN_RECONNECT_BACKOFF_MS doubles as the
    // connect timeout, so it keeps its default (20 s) for slow links.
    const int ms = static_cast<int>(max_reconnect_backoff.count());
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, std::min(ms, 1000));
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, ms);
  }
  return grpc::CreateCustomChannel(target, *creds, args);
}

}  // namespace tunefarm::wire
