// Checks that a TLS server's key belongs to its certificate, before gRPC sees them.
//
// gRPC reports a mismatched pair only as a server that fails to start, which the servers can
// only explain as "port in use, or not a local address?". OpenSSL (a dependency of Debian's
// gRPC) tells the real reason.
#ifndef TUNEFARM_PROTO_TLS_KEY_PAIR_H_
#define TUNEFARM_PROTO_TLS_KEY_PAIR_H_

#include <string>

#include "absl/status/status.h"

namespace tunefarm::wire {

// OK when `cert_pem` holds a certificate, `key_pem` an unencrypted private key, and the key is
// the certificate's. The error names the files (cert_path, key_path) and which check failed.
absl::Status CheckTlsKeyPair(const std::string& cert_pem, const std::string& key_pem, const std::string& cert_path,
                             const std::string& key_path);

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_TLS_KEY_PAIR_H_
